#include "capture_client.h"

#include "harel/dynamodb/attribute_value.h"

namespace harel::bench {

namespace bj = boost::json;

bj::value CaptureClient::call(std::string_view operation, const bj::object& request) {
  calls_.push_back({std::string(operation), request});
  if (forwarding_) return real_->call(operation, request);
  // The seq allocator's counter ADD answers with the counter's new value; a
  // successful write (TransactWriteItems, DeleteItem, ...) answers "{}". The
  // seqs only name outbox items, which are written unconditionally, so any
  // fresh value stands in for the server's.
  if (operation == "UpdateItem") {
    const auto added = dynamodb::av::get_int(request.at("ExpressionAttributeValues").as_object(), ":k");
    counter_ += added;
    return bj::object{{"Attributes", {{"n", dynamodb::av::N(counter_)}}}};
  }
  return bj::object();
}

}  // namespace harel::bench
