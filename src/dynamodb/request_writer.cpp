#include "dynamodb/request_writer.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <span>
#include <utility>

#include "dynamodb/protocol.h"
#include "harel/errors.h"

namespace harel::dynamodb {
namespace {

// x-amz-date for now, "YYYYMMDDTHHMMSSZ" in UTC; formatted once per second
// and thread rather than on every request.
std::string_view amz_date_now() {
  namespace chr = std::chrono;
  struct Cached {
    chr::sys_seconds second{chr::seconds(-1)};
    char text[16];
  };
  thread_local Cached cached;
  const auto now = chr::floor<chr::seconds>(chr::system_clock::now());
  if (now != cached.second) {
    const auto day = chr::floor<chr::days>(now);
    const chr::year_month_day ymd(day);
    const chr::hh_mm_ss hms(now - day);
    const auto digits = [](char* out, unsigned value, int n) {
      for (int i = n - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
    };
    digits(cached.text, static_cast<unsigned>(static_cast<int>(ymd.year())), 4);
    digits(cached.text + 4, static_cast<unsigned>(ymd.month()), 2);
    digits(cached.text + 6, static_cast<unsigned>(ymd.day()), 2);
    cached.text[8] = 'T';
    digits(cached.text + 9, static_cast<unsigned>(hms.hours().count()), 2);
    digits(cached.text + 11, static_cast<unsigned>(hms.minutes().count()), 2);
    digits(cached.text + 13, static_cast<unsigned>(hms.seconds().count()), 2);
    cached.text[15] = 'Z';
    cached.second = now;
  }
  return {cached.text, sizeof cached.text};
}

void check_header_text(std::string_view value, const char* what) {
  const bool bad = std::any_of(value.begin(), value.end(), [](char c) {
    return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
  });
  if (bad) throw InvalidArgument(std::string(what) + " contains a control character");
}

void append_header(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append(": ").append(value).append("\r\n");
}

}  // namespace

RequestWriter::RequestWriter(Settings settings, std::string user_agent)
    : settings_(std::move(settings)),
      user_agent_(std::move(user_agent)),
      host_header_(settings_.endpoint.host_header()) {
  check_header_text(user_agent_, "HttpClientOptions::user_agent");
  check_header_text(settings_.region, "the region");
  check_header_text(settings_.credentials.access_key_id, "the access key id");
  check_header_text(settings_.credentials.session_token, "the session token");
}

std::string RequestWriter::write(std::string_view operation, const boost::json::object& request) {
  protocol::check_operation(operation);
  const std::string body = protocol::request_body(operation, request);
  std::string target;
  target.reserve(protocol::kTargetPrefix.size() + operation.size());
  target.append(protocol::kTargetPrefix).append(operation);
  const std::string_view amz_date = amz_date_now();
  const std::string payload_hash = sigv4::sha256_hex(body);
  const Credentials& creds = settings_.credentials;
  const sigv4::Header headers[] = {{"content-type", protocol::kContentType},
                                   {"host", host_header_},
                                   {"x-amz-date", amz_date},
                                   {"x-amz-target", target},
                                   {"x-amz-security-token", creds.session_token}};
  const sigv4::Request to_sign{"POST", settings_.endpoint.path, "",
                               std::span(headers, creds.session_token.empty() ? 4 : 5), payload_hash};
  const sigv4::Signed sig =
      sigv4::sign(to_sign, creds.access_key_id, signing_key(amz_date), amz_date, settings_.region, "dynamodb");

  char length[24];
  const auto length_end = std::to_chars(length, length + sizeof length, body.size()).ptr;
  std::string wire;
  wire.reserve(400 + creds.session_token.size() + user_agent_.size() + body.size());
  wire.append("POST ").append(settings_.endpoint.path).append(" HTTP/1.1\r\n");
  append_header(wire, "Host", host_header_);
  append_header(wire, "Content-Type", protocol::kContentType);
  append_header(wire, "X-Amz-Target", target);
  append_header(wire, "X-Amz-Date", amz_date);
  if (!creds.session_token.empty()) append_header(wire, "X-Amz-Security-Token", creds.session_token);
  append_header(wire, "Authorization", sig.authorization);
  append_header(wire, "User-Agent", user_agent_);
  append_header(wire, "Content-Length", std::string_view(length, length_end - length));
  wire.append("\r\n").append(body);
  return wire;
}

sigv4::SigningKey RequestWriter::signing_key(std::string_view amz_date) {
  const std::string_view day = amz_date.substr(0, 8);
  std::lock_guard lock(key_mutex_);
  if (key_day_ != day) {
    key_ = sigv4::derive_key(settings_.credentials.secret_access_key, day, settings_.region, "dynamodb");
    key_day_ = day;
  }
  return key_;
}

}  // namespace harel::dynamodb
