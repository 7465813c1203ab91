// JSON text → boost::json::value, with every double correctly rounded.
//
// Boost.JSON 1.81's parser converts some decimal numbers to the neighbouring
// double (3.777777777777778e107, about one in ten random doubles below 1e9),
// so a context value would drift by one ulp on every load → save. This parser
// uses Boost.JSON's tokenizer but converts number text with std::from_chars,
// so JSON written by json::write reads back to the very same value.
#pragma once

#include <string_view>

#include <boost/json/value.hpp>
#include <boost/system/error_code.hpp>

namespace harel::json {

// Parses one complete JSON document; on malformed text sets `ec` and returns null.
boost::json::value parse(std::string_view text, boost::system::error_code& ec);

}  // namespace harel::json
