// Whatever bytes come back from the network: Beast parses them as an HTTP
// response or rejects them, and protocol::interpret turns any complete
// response into exactly one of a JSON document or a typed error
// (DynamoError / TransportError) — never anything else.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/beast/http.hpp>

#include "dynamodb/protocol.h"
#include "harel/dynamodb/errors.h"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  http::response_parser<http::string_body> parser;
  parser.body_limit(1 << 20);
  parser.eager(true);
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (!ec && !parser.is_done()) parser.put_eof(ec);
  if (ec || !parser.is_done()) return 0;
  const auto& res = parser.get();
  const auto field = [&](std::string_view name) {
    const auto v = res[name];
    return std::string_view(v.data(), v.size());
  };
  const auto out = harel::dynamodb::protocol::interpret(static_cast<int>(res.result_int()), res.body(),
                                                        field("x-amzn-RequestId"), field("x-amzn-ErrorType"));
  if (out.error) {
    if (!out.response.is_null()) std::abort();
    try {
      std::rethrow_exception(out.error);
    } catch (const harel::dynamodb::DynamoError&) {
    } catch (const harel::dynamodb::TransportError&) {
    } catch (...) {
      std::abort();
    }
  } else if (!out.response.is_object()) {
    std::abort();
  }
  return 0;
}
