// RequestWriter: a DynamoDB call as the complete HTTP/1.1 request that goes
// on the wire — the JSON body (a TransactWriteItems gets its
// ClientRequestToken here) under a SigV4-signed head, in one buffer.
//
// HttpDynamoClient writes every call with it once and sends that buffer on
// every attempt. The benchmark's transport floor (bench/wire.h) prebuilds its
// requests with it, so the floor sends exactly what the client would.
//
// Thread safety: write() may be called from several threads at once.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "dynamodb/sigv4.h"
#include "harel/dynamodb/config.h"

namespace harel::dynamodb {

class RequestWriter {
 public:
  // Raises InvalidArgument if a setting that becomes a header value (the user
  // agent — named HttpClientOptions::user_agent in the message, where users
  // set it — region, access key id or session token) holds a control
  // character: a line break there would forge headers. The message does not
  // quote it.
  RequestWriter(Settings settings, std::string user_agent);

  // The request for `operation` with `request` as its body, signed now.
  // Raises InvalidArgument for an operation name that is not one.
  std::string write(std::string_view operation, const boost::json::object& request);

  const Settings& settings() const noexcept { return settings_; }

 private:
  // The derived key changes once a day; deriving it costs four HMACs, so it
  // is computed once per day rather than per request.
  sigv4::SigningKey signing_key(std::string_view amz_date);

  Settings settings_;
  std::string user_agent_;
  std::string host_header_;
  std::mutex key_mutex_;
  std::string key_day_;
  sigv4::SigningKey key_{};
};

}  // namespace harel::dynamodb
