// Real DynamoDB-compatible servers on loopback for the tests.
//
// Each endpoint comes from its environment variable when set (the test
// script starts every server once and exports it: tests/support/
// start-servers.sh); otherwise the first call starts the server on a free
// loopback port, waits until it accepts connections, and stops it when the
// test process exits. A server that cannot be started raises
// std::runtime_error saying why — the tests then fail, they do not skip.
#pragma once

#include <string>
#include <string_view>

namespace harel::testing {

// AWS's DynamoDB Local (HAREL_TEST_DYNAMODB_LOCAL), e.g. "http://127.0.0.1:41234".
std::string dynamodb_local_endpoint();

// moto_server (HAREL_TEST_MOTO).
std::string moto_endpoint();

// "<base>_<pid>_<counter>_<random>": a table prefix no other test (or
// concurrent test process) uses. Only [a-zA-Z0-9_], as table names need.
std::string unique_prefix(std::string_view base = "t");

}  // namespace harel::testing
