#include "dynamodb/protocol.h"

#include <openssl/rand.h>
#include <sys/mman.h>

#include <cstring>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "harel/dynamodb/errors.h"
#include "harel/errors.h"

namespace harel::dynamodb::protocol {
namespace json = boost::json;

void check_operation(std::string_view operation) {
  bool ok = !operation.empty() && operation.size() <= 64;
  for (char c : operation) ok = ok && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'));
  if (!ok) throw InvalidArgument("invalid DynamoDB operation name '" + std::string(operation.substr(0, 64)) + "'");
}

namespace {

// RAND_bytes costs more than the rest of a request's body: OpenSSL 3 checks
// for a fork (a system call) and re-keys its generator on every call. So each
// thread draws the randomness of 64 tokens at once. A child process must
// never reuse bytes its parent drew: both would send the same token, and
// DynamoDB would take the second transaction for a retry of the first and
// not apply it. The batch therefore lives in a page the kernel zeroes in
// every child that does not share the parent's memory (MADV_WIPEONFORK, as
// BoringSSL keeps its generator state) — whether it was made by fork(),
// _Fork() or clone() — and a zeroed page reads as an empty batch. Where the
// kernel cannot do that, every token is drawn on its own.
class TokenRandomness {
 public:
  TokenRandomness() {
#ifdef MADV_WIPEONFORK
    void* page = mmap(nullptr, sizeof(Batch), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return;
    if (madvise(page, sizeof(Batch), MADV_WIPEONFORK) != 0) {
      munmap(page, sizeof(Batch));
      return;
    }
    batch_ = static_cast<Batch*>(page);  // zero-filled: empty
#endif
  }
  ~TokenRandomness() {
    if (batch_) munmap(batch_, sizeof(Batch));
  }
  TokenRandomness(const TokenRandomness&) = delete;
  TokenRandomness& operator=(const TokenRandomness&) = delete;

  void draw(unsigned char (&out)[16]) {
    if (!batch_) return fill(out, sizeof out);
    if (batch_->left == 0) {
      fill(batch_->bytes, sizeof batch_->bytes);
      batch_->left = Batch::kTokens;
    }
    std::memcpy(out, batch_->bytes + 16 * (Batch::kTokens - batch_->left--), sizeof out);
  }

 private:
  struct Batch {
    static constexpr std::size_t kTokens = 64;
    std::size_t left;  // tokens not yet handed out; 0 in a fresh or wiped page
    unsigned char bytes[16 * kTokens];
  };

  static void fill(unsigned char* bytes, std::size_t n) {
    if (RAND_bytes(bytes, static_cast<int>(n)) != 1) throw Error("no randomness for a ClientRequestToken");
  }

  Batch* batch_ = nullptr;
};

}  // namespace

std::string new_client_request_token() {
  thread_local TokenRandomness randomness;
  unsigned char b[16];
  randomness.draw(b);
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 15];
  }
  return out;
}

std::string request_body(std::string_view operation, const json::object& request) {
  std::string body = json::serialize(request);
  if (operation == "TransactWriteItems" && !request.contains("ClientRequestToken")) {
    // body is "{...}"; append the member before the closing brace.
    body.pop_back();
    if (!request.empty()) body += ',';
    body += "\"ClientRequestToken\":\"";
    body += new_client_request_token();
    body += "\"}";
  }
  return body;
}

namespace {

std::string_view string_member(const json::object& o, std::string_view key) {
  if (const json::value* v = o.if_contains(key); v && v->is_string()) return v->get_string();
  return {};
}

// "com.amazonaws.dynamodb.v20120810#ThrottlingException" → the part after
// '#'; x-amzn-ErrorType may also carry ":http://..." after the code.
std::string_view error_code(std::string_view type) {
  if (const std::size_t hash = type.rfind('#'); hash != std::string_view::npos) type.remove_prefix(hash + 1);
  if (const std::size_t colon = type.find(':'); colon != std::string_view::npos) type = type.substr(0, colon);
  return type;
}

}  // namespace

Interpreted interpret(int status, std::string_view body, std::string_view request_id,
                      std::string_view error_type_header) {
  Interpreted out;
  boost::system::error_code ec;
  json::value doc = body.empty() ? json::value(json::object_kind) : json::parse(body, ec);
  if (success_status(status)) {
    if (ec || !doc.is_object()) {
      out.kind = FailureKind::Transient;  // a truncated or mangled answer: asking again can help
      out.error = std::make_exception_ptr(
          TransportError("MalformedResponse", "DynamoDB answered HTTP " + std::to_string(status) +
                                                  " with a body that is not a JSON object",
                         ec, true));
      return out;
    }
    out.response = std::move(doc);
    return out;
  }
  json::object error_doc;
  if (!ec && doc.is_object()) error_doc = std::move(doc.get_object());
  std::string_view code = error_code(string_member(error_doc, "__type"));
  if (code.empty()) code = error_code(error_type_header);
  std::string message(string_member(error_doc, "message"));
  if (message.empty()) message = string_member(error_doc, "Message");
  if (message.empty() && error_doc.empty()) {
    // Not DynamoDB's JSON (a proxy or load balancer page): keep a short,
    // printable excerpt for diagnosis.
    for (char c : body.substr(0, 200)) message += (c >= 0x20 && c < 0x7f) ? c : ' ';
  }
  const std::string code_text = code.empty() ? "HTTP" + std::to_string(status) : std::string(code);
  out.kind = classify_error(code_text, status);
  out.error = std::make_exception_ptr(DynamoError(code_text, std::move(message), status, out.kind != FailureKind::Fatal,
                                                  std::string(request_id), std::move(error_doc)));
  return out;
}

}  // namespace harel::dynamodb::protocol
