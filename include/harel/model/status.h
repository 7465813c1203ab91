// The lifecycle status of an Execution, spelled on the wire as the reference
// implementation spells it ("PENDING", "RUNNING", ...).
#pragma once

#include <optional>
#include <string_view>

namespace harel {

enum class Status { Pending, Running, Done, Cancelled, Suspended, Cancelling, Failed };

// The wire spelling, e.g. "DONE".
std::string_view to_string(Status s) noexcept;

// Parses a wire spelling; nullopt for anything else (case-sensitive).
std::optional<Status> parse_status(std::string_view text) noexcept;

// True for statuses an Execution never leaves (DONE, CANCELLED, FAILED).
bool is_terminal(Status s) noexcept;

}  // namespace harel
