// Where the DynamoDB client finds its endpoint, region and credentials.
//
// The lookup order is the one AWS tools use, so a machine set up for the AWS
// CLI works unchanged:
//
//   credentials: explicit → AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY
//                (+ AWS_SESSION_TOKEN) → the shared credentials file
//                (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials,
//                section [profile]) → the config file (AWS_CONFIG_FILE, else
//                ~/.aws/config, section [profile name], or [default])
//   profile:     explicit → AWS_PROFILE → "default"
//   region:      explicit → AWS_REGION → AWS_DEFAULT_REGION → config file
//   endpoint:    explicit → AWS_ENDPOINT_URL_DYNAMODB → AWS_ENDPOINT_URL →
//                https://dynamodb.<region>.amazonaws.com
//
// A local endpoint (plain http, or a loopback host) accepts any signature,
// so it gets dummy credentials and region "us-east-1" when none are found;
// DynamoDB Local and moto need no AWS setup at all. For any other endpoint a
// missing piece is an InvalidArgument naming every place that was searched.
// Credential values never appear in messages.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace harel::dynamodb {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty for long-term keys
};

// The source of environment variables. Tests inject a map instead of
// mutating the process environment; HOME is read through it too.
class Environment {
 public:
  using Lookup = std::function<std::optional<std::string>(std::string_view name)>;

  explicit Environment(Lookup lookup) : lookup_(std::move(lookup)) {}

  // The real process environment (getenv).
  static Environment process();
  // Exactly these variables, nothing else.
  static Environment from_map(std::map<std::string, std::string, std::less<>> vars);

  // nullopt when the variable is unset or empty (AWS tools treat both alike).
  std::optional<std::string> get(std::string_view name) const;

 private:
  Lookup lookup_;
};

// A parsed endpoint URL: http(s)://host[:port][/path].
struct Endpoint {
  bool tls = true;
  std::string host;  // without brackets for IPv6 literals
  std::uint16_t port = 443;
  std::string path = "/";

  // Raises InvalidArgument for anything but an http(s) URL with a host.
  static Endpoint parse(std::string_view url);

  // The Host header (and SigV4 host): the port only when not the scheme's
  // default, as HTTP clients send it and AWS signs it.
  std::string host_header() const;
  std::string url() const;
  // plain http or a loopback host: a development server, not AWS
  bool is_local() const;
};

// What the caller states explicitly; anything unset is looked up.
struct SettingsOverrides {
  std::optional<std::string> endpoint_url;
  std::optional<std::string> region;
  std::optional<std::string> profile;
  std::optional<Credentials> credentials;
};

struct Settings {
  Endpoint endpoint;
  std::string region;
  Credentials credentials;
  // Where the credentials came from, for diagnostics: "explicit",
  // "environment", "shared credentials file <path> [profile]", "config file
  // <path> [profile]" or "dummy (local endpoint)". Never the values.
  std::string credentials_source;
};

// Resolves the settings in the order above. Raises InvalidArgument for a
// malformed endpoint URL, an explicitly chosen profile found in neither file,
// half a key pair, or a missing region/credentials for a non-local endpoint.
Settings resolve_settings(const SettingsOverrides& overrides = {},
                          const Environment& env = Environment::process());

}  // namespace harel::dynamodb
