#include "transport/validate.h"

#include <charconv>
#include <string>

#include "harel/errors.h"
#include "store/validate.h"

namespace harel::transport {

void check_publications(std::span<const Publication> messages) {
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Publication& m = messages[i];
    const std::string which = "publication " + std::to_string(i) + " (event '" + m.event.id + "')";
    // The execution id's limit: every group id is an execution id.
    store::check_id(m.group_id, "group id of " + which);
    if (m.dedupe_id && m.dedupe_id->empty()) throw InvalidArgument("dedupe id of " + which + " is set but empty");
  }
}

void check_duration(std::chrono::milliseconds d, std::string_view what) {
  if (d.count() < 0)
    throw InvalidArgument(std::string(what) + " must not be negative, got " + std::to_string(d.count()) + " ms");
}

void check_max_messages(int n) {
  if (n < 1 || n > kMaxClaimMessages)
    throw InvalidArgument("max_messages must be 1.." + std::to_string(kMaxClaimMessages) + ", got " +
                          std::to_string(n));
}

std::optional<std::int64_t> parse_message_id(std::string_view text) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

}  // namespace harel::transport
