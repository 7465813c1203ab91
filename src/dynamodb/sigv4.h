// AWS Signature Version 4 (header form), as DynamoDB expects it.
//
// Pure functions over the request's parts; no I/O, no clock. The client feeds
// them the exact bytes it sends, and the tests feed them AWS's published test
// suite and botocore's vectors, so both check the same code.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace harel::dynamodb::sigv4 {

struct Header {
  std::string_view name;   // any case; canonicalized to lower case
  std::string_view value;  // trimmed and space-collapsed when canonicalized
};

// What is signed. `headers` must contain `host` and `x-amz-date`, and
// `x-amz-security-token` when temporary credentials are used: every header
// given is signed. Repeated names are joined with ',' in the given order.
struct Request {
  std::string_view method;
  std::string_view path = "/";  // as sent, unencoded; normalized (".", "..", "//")
  std::string_view query;       // without '?', as sent
  std::span<const Header> headers;
  std::string_view payload_sha256_hex;  // sha256_hex(body)
};

// The 32-byte key derived from the secret for one day, region and service.
// It is valid for every request of that day, so callers may cache it.
using SigningKey = std::array<unsigned char, 32>;

// `date` is YYYYMMDD (the first 8 characters of x-amz-date).
SigningKey derive_key(std::string_view secret_access_key, std::string_view date, std::string_view region,
                      std::string_view service);

// The intermediate texts are kept because the vectors check each of them.
struct Signed {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;      // lowercase hex
  std::string authorization;  // the whole Authorization header value
};

// Signs `request`. `amz_date` is the x-amz-date value (YYYYMMDD'T'HHMMSS'Z'),
// `key` must come from derive_key() for amz_date's day, `region` and `service`.
Signed sign(const Request& request, std::string_view access_key_id, const SigningKey& key,
            std::string_view amz_date, std::string_view region, std::string_view service);

// Lowercase hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace harel::dynamodb::sigv4
