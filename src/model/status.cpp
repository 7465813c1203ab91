#include "harel/model/status.h"

#include <array>
#include <utility>

namespace harel {
namespace {
constexpr std::array<std::pair<Status, std::string_view>, 7> kSpellings{{
    {Status::Pending, "PENDING"},
    {Status::Running, "RUNNING"},
    {Status::Done, "DONE"},
    {Status::Cancelled, "CANCELLED"},
    {Status::Suspended, "SUSPENDED"},
    {Status::Cancelling, "CANCELLING"},
    {Status::Failed, "FAILED"},
}};
}  // namespace

std::string_view to_string(Status s) noexcept {
  for (const auto& [status, text] : kSpellings)
    if (status == s) return text;
  return "PENDING";
}

std::optional<Status> parse_status(std::string_view text) noexcept {
  for (const auto& [status, spelling] : kSpellings)
    if (spelling == text) return status;
  return std::nullopt;
}

bool is_terminal(Status s) noexcept { return s == Status::Done || s == Status::Cancelled || s == Status::Failed; }

}  // namespace harel
