#include "harel/dynamodb/client.h"

#include <boost/asio/append.hpp>
#include <boost/asio/post.hpp>

namespace harel::dynamodb {

void DynamoClient::do_async_call(std::string_view operation, const boost::json::object& request, Handler handler) {
  std::exception_ptr error;
  boost::json::value response;
  try {
    response = call(operation, request);
  } catch (...) {
    error = std::current_exception();
  }
  // post() runs the handler through its own associated executor, falling
  // back to executor().
  boost::asio::post(executor(), boost::asio::append(std::move(handler), error, std::move(response)));
}

}  // namespace harel::dynamodb
