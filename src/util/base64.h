// Base64 (RFC 4648 §4, the DynamoDB binary wire form) and base64url (§5,
// unpadded, for opaque cursors).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace harel::util {

std::string base64_encode(std::string_view bytes);
std::string base64url_encode(std::string_view bytes);  // no '=' padding

// nullopt when `text` is not valid in that alphabet (padding optional).
std::optional<std::string> base64_decode(std::string_view text);
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace harel::util
