// The attribute-value codec: any JSON object is either an item (from_item
// succeeds) or raises DecodeError; a decoded item converts back with to_item,
// and exact (Numbers::Text) decoding of that is stable.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/json/parse.hpp>

#include "harel/dynamodb/attribute_value.h"
#include "harel/errors.h"

namespace av = harel::dynamodb::av;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  boost::system::error_code ec;
  const boost::json::value doc = boost::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), ec);
  if (ec || !doc.is_object()) return 0;
  const boost::json::object& item = doc.get_object();
  boost::json::object exact;
  try {
    exact = av::from_item(item, av::Numbers::Text);
    av::from_item(item, av::Numbers::Native);
  } catch (const harel::DecodeError&) {
    return 0;
  }
  // Plain JSON (numbers as text, now strings) → attribute values → plain again.
  const boost::json::object again = av::from_item(av::to_item(exact), av::Numbers::Text);
  if (again != exact) std::abort();
  try {
    av::to_item(item);  // arbitrary plain JSON: converts, or InvalidArgument (non-finite number)
  } catch (const harel::InvalidArgument&) {
  }
  return 0;
}
