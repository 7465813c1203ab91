#include "harel/json/parse.h"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>

#include "json/value_builder.h"

namespace harel::json {

boost::json::value parse(std::string_view text, boost::system::error_code& ec) {
  // The value stack's scratch space: on the stack unless the document is big.
  unsigned char temp[4096];
  boost::json::basic_parser<ValueBuilder> parser(boost::json::parse_options{}, temp, sizeof temp);
  parser.handler().reset();
  const std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && used < text.size()) ec = boost::json::error::extra_data;
  if (ec) return nullptr;
  return parser.handler().release();
}

}  // namespace harel::json
