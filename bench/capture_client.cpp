#include "capture_client.h"

#include "harel/dynamodb/attribute_value.h"

namespace harel::bench {

namespace bj = boost::json;

bj::object LocalAnswers::answer(std::string_view operation, const bj::object& request) {
  if (operation != "UpdateItem") return {};
  counter_ += dynamodb::av::get_int(request.at("ExpressionAttributeValues").as_object(), ":k");
  return {{"Attributes", {{"n", dynamodb::av::N(counter_)}}}};
}

bj::value CaptureClient::call(std::string_view operation, const bj::object& request) {
  calls_.push_back({std::string(operation), request});
  if (forwarding_) return real_->call(operation, request);
  return answers_.answer(operation, request);
}

}  // namespace harel::bench
