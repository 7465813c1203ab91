#include "harel/transport/transport.h"

#include <string>

namespace harel {

void Transport::publish(std::string_view group_id, const Event& event) {
  const Publication message{std::string(group_id), event, std::nullopt};
  publish(std::span(&message, 1));
}

}  // namespace harel
