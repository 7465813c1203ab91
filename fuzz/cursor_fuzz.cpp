// Listing cursors are user input: any text is either accepted or raises
// InvalidCursor. The id-ordered stores' cursor (memory, SQLite) re-encodes to
// what it decoded; DynamoDB's (driven through Operations::list_executions,
// which decodes it before its first request) only ever becomes an
// ExclusiveStartKey of the executions table's exact key shape.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "harel/errors.h"
#include "store/dynamodb/operations.h"
#include "store/listing.h"

namespace {

void id_cursor(const std::string& cursor) {
  std::string id;
  try {
    id = harel::store::decode_after_cursor(cursor);
  } catch (const harel::InvalidCursor&) {
    return;
  }
  if (id.empty() || harel::store::decode_after_cursor(harel::store::encode_after_cursor(id)) != id) std::abort();
}

void dynamodb_cursor(const std::string& cursor) {
  static const harel::store::dynamodb::Operations ops(harel::store::dynamodb::TableNames("p"), true);
  harel::ListQuery query;
  query.cursor = cursor;
  auto listing = ops.list_executions(query);
  const auto step = listing.resume();
  if (std::holds_alternative<std::monostate>(step)) {
    try {
      listing.result();
    } catch (const harel::InvalidCursor&) {
      return;
    }
    std::abort();  // finished without a request, yet no InvalidCursor
  }
  const auto* call = std::get_if<harel::store::dynamodb::DynamoCall*>(&step);
  if (!call) std::abort();
  const boost::json::object& key = (*call)->request.at("ExclusiveStartKey").as_object();
  if (key.size() != 1 || key.at("id").as_object().size() != 1 || key.at("id").at("S").as_string().empty())
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string cursor(reinterpret_cast<const char*>(data), size);
  id_cursor(cursor);
  dynamodb_cursor(cursor);
  return 0;
}
