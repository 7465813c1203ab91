#include "dynamodb/sigv4.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace harel::dynamodb::sigv4 {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Written in place: appending character by character re-checks the
// capacity and stores the size for every one of them.
void append_hex(std::string& out, const unsigned char* bytes, std::size_t n) {
  const std::size_t at = out.size();
  out.resize(at + 2 * n);
  char* hex = out.data() + at;
  for (std::size_t i = 0; i < n; ++i) {
    hex[2 * i] = kHex[bytes[i] >> 4];
    hex[2 * i + 1] = kHex[bytes[i] & 15];
  }
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// OpenSSL 3's one-shot SHA256() and HMAC() fetch the algorithm and build a
// context on every call, which costs more than hashing a request. The
// algorithms are fetched once; each thread keeps and reuses its contexts.
[[noreturn]] void openssl_failed(const char* what) { throw std::runtime_error(std::string("OpenSSL ") + what + " failed"); }

struct Sha256Context {
  EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~Sha256Context() {
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
  }
};

void sha256(std::string_view data, unsigned char (&digest)[SHA256_DIGEST_LENGTH]) {
  thread_local Sha256Context c;
  if (!c.md || !c.ctx || !EVP_DigestInit_ex2(c.ctx, c.md, nullptr) || !EVP_DigestUpdate(c.ctx, data.data(), data.size()) ||
      !EVP_DigestFinal_ex(c.ctx, digest, nullptr))
    openssl_failed("SHA-256");
}

// Keying an HMAC context precomputes the key's inner and outer pads. The
// context remembers its last 32-byte key (a derived key: every request of a
// day is signed with the same one) and is only re-keyed when the key changes.
struct HmacContext {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
  bool digest_set = false;  // the digest parameter sticks to the context
  bool keyed = false;       // ctx holds `key`
  SigningKey key{};
  ~HmacContext() {
    OPENSSL_cleanse(key.data(), key.size());
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
  }
};

SigningKey hmac(const unsigned char* key, std::size_t key_len, std::string_view data) {
  thread_local HmacContext c;
  char digest_name[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0), OSSL_PARAM_construct_end()};
  const bool same_key = c.keyed && key_len == c.key.size() && CRYPTO_memcmp(key, c.key.data(), key_len) == 0;
  if (!same_key) c.keyed = false;  // until the new key is in place
  if (!c.ctx || !EVP_MAC_init(c.ctx, same_key ? nullptr : key, same_key ? 0 : key_len, c.digest_set ? nullptr : params))
    openssl_failed("HMAC");
  c.digest_set = true;
  if (!same_key) {
    c.keyed = key_len == c.key.size();
    if (c.keyed) std::copy(key, key + key_len, c.key.begin());
  }
  SigningKey out;
  std::size_t len = 0;
  if (!EVP_MAC_update(c.ctx, reinterpret_cast<const unsigned char*>(data.data()), data.size()) ||
      !EVP_MAC_final(c.ctx, out.data(), &len, out.size())) {
    c.keyed = false;  // the context's state is unknown now
    openssl_failed("HMAC");
  }
  return out;
}

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.' || c == '~';
}

void append_uri_encoded(std::string& out, std::string_view s) {
  for (unsigned char c : s) {
    if (unreserved(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += "0123456789ABCDEF"[c >> 4];
      out += "0123456789ABCDEF"[c & 15];
    }
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Query components arrive as sent (possibly percent-encoded); decoding first
// makes the canonical form independent of how the caller encoded them.
std::string percent_decoded(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// RFC 3986 dot-segment removal plus collapsing of empty segments, as AWS
// normalizes paths for every service but S3.
void append_canonical_path(std::string& out, std::string_view path) {
  if (path == "/") {  // every DynamoDB endpoint
    out += '/';
    return;
  }
  std::vector<std::string_view> segments;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(pos, end - pos);
    if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (!seg.empty() && seg != ".") {
      segments.push_back(seg);
    }
    pos = end + 1;
  }
  const bool trailing_slash =
      !segments.empty() && (path.ends_with('/') || path.ends_with("/.") || path.ends_with("/.."));
  out += '/';
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (i) out += '/';
    append_uri_encoded(out, segments[i]);
  }
  if (trailing_slash) out += '/';
}

void append_canonical_query(std::string& out, std::string_view query) {
  std::vector<std::pair<std::string, std::string>> params;
  std::size_t pos = 0;
  while (pos < query.size()) {
    std::size_t end = query.find('&', pos);
    if (end == std::string_view::npos) end = query.size();
    std::string_view part = query.substr(pos, end - pos);
    if (!part.empty()) {
      const std::size_t eq = part.find('=');
      std::string key, value;
      append_uri_encoded(key, percent_decoded(part.substr(0, eq)));
      if (eq != std::string_view::npos) append_uri_encoded(value, percent_decoded(part.substr(eq + 1)));
      params.emplace_back(std::move(key), std::move(value));
    }
    pos = end + 1;
  }
  std::sort(params.begin(), params.end());
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) out += '&';
    out += params[i].first;
    out += '=';
    out += params[i].second;
  }
}

// Trims and collapses runs of spaces, as the canonical header form requires.
void append_trimmed(std::string& out, std::string_view v) {
  const auto space = [](char c) { return c == ' ' || c == '\t'; };
  while (!v.empty() && space(v.front())) v.remove_prefix(1);
  while (!v.empty() && space(v.back())) v.remove_suffix(1);
  if (v.find('\t') == std::string_view::npos && v.find("  ") == std::string_view::npos) {
    out += v;  // nothing to collapse: the usual case
    return;
  }
  bool in_space = false;
  for (char c : v) {
    if (space(c)) {
      in_space = true;
      continue;
    }
    if (in_space) out += ' ';
    in_space = false;
    out += c;
  }
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  sha256(data, digest);
  std::string out;
  out.reserve(2 * SHA256_DIGEST_LENGTH);
  append_hex(out, digest, SHA256_DIGEST_LENGTH);
  return out;
}

SigningKey derive_key(std::string_view secret_access_key, std::string_view date, std::string_view region,
                      std::string_view service) {
  std::string k = "AWS4";
  k += secret_access_key;
  SigningKey key = hmac(reinterpret_cast<const unsigned char*>(k.data()), k.size(), date);
  OPENSSL_cleanse(k.data(), k.size());  // the secret should not linger in freed memory
  key = hmac(key.data(), key.size(), region);
  key = hmac(key.data(), key.size(), service);
  return hmac(key.data(), key.size(), "aws4_request");
}

Signed sign(const Request& request, std::string_view access_key_id, const SigningKey& key,
            std::string_view amz_date, std::string_view region, std::string_view service) {
  // Lowercase names, sorted stably so repeated headers keep their order: an
  // insertion sort, as a request has a handful of headers (std::stable_sort
  // would allocate a buffer for them).
  struct Canonical {
    std::string name;
    std::string_view value;
  };
  std::vector<Canonical> headers;
  headers.reserve(request.headers.size());
  for (const Header& h : request.headers) {
    std::string name(h.name);
    std::transform(name.begin(), name.end(), name.begin(), ascii_lower);
    Canonical c{std::move(name), h.value};
    auto at = headers.end();
    while (at != headers.begin() && c.name < std::prev(at)->name) --at;
    headers.insert(at, std::move(c));
  }

  std::string signed_headers;
  Signed out;
  std::string& creq = out.canonical_request;
  creq.reserve(256);
  creq += request.method;
  creq += '\n';
  append_canonical_path(creq, request.path);
  creq += '\n';
  append_canonical_query(creq, request.query);
  creq += '\n';
  for (std::size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].name == headers[i - 1].name) {
      creq.back() = ',';  // a repeated header: join its values
    } else {
      creq += headers[i].name;
      creq += ':';
      if (!signed_headers.empty()) signed_headers += ';';
      signed_headers += headers[i].name;
    }
    append_trimmed(creq, headers[i].value);
    creq += '\n';
  }
  creq += '\n';
  creq += signed_headers;
  creq += '\n';
  creq += request.payload_sha256_hex;

  const std::string_view date = amz_date.substr(0, 8);
  std::string scope;
  scope.reserve(64);
  scope.append(date).append("/").append(region).append("/").append(service).append("/aws4_request");

  std::string& sts = out.string_to_sign;
  sts.reserve(128);
  sts.append("AWS4-HMAC-SHA256\n").append(amz_date).append("\n").append(scope).append("\n");
  sts += sha256_hex(creq);

  const SigningKey mac = hmac(key.data(), key.size(), sts);
  out.signature.reserve(64);
  append_hex(out.signature, mac.data(), mac.size());

  out.authorization.reserve(200);
  out.authorization.append("AWS4-HMAC-SHA256 Credential=")
      .append(access_key_id)
      .append("/")
      .append(scope)
      .append(", SignedHeaders=")
      .append(signed_headers)
      .append(", Signature=")
      .append(out.signature);
  return out;
}

}  // namespace harel::dynamodb::sigv4
