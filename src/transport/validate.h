// Input checks shared by every transport, run before anything is written.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "harel/transport/transport.h"

namespace harel::transport {

// The most messages one claim may lease (SQS ReceiveMessage's limit).
inline constexpr int kMaxClaimMessages = 10;

// Raises InvalidArgument naming the publication whose group id is empty or
// too long, or whose dedupe id is set but empty.
void check_publications(std::span<const Publication> messages);

// Raises InvalidArgument naming `what` ("visibility", "delay") if negative.
void check_duration(std::chrono::milliseconds d, std::string_view what);

// Raises InvalidArgument unless 1 <= n <= kMaxClaimMessages.
void check_max_messages(int n);

// A message id as both transports write it (a decimal number); nullopt for
// anything else, which then names no message.
std::optional<std::int64_t> parse_message_id(std::string_view text);

}  // namespace harel::transport
