#include "harel/dynamodb/config.h"

#include <algorithm>

#include <charconv>
#include <cstdlib>
#include <fstream>

#include "harel/errors.h"

namespace harel::dynamodb {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// One section of an AWS INI file: key → value. Indented lines (nested
// sub-sections such as "s3 =\n  max_concurrent_requests = 20") are skipped:
// nothing the client reads lives there.
using Section = std::map<std::string, std::string, std::less<>>;

struct IniFile {
  std::string path;
  bool exists = false;
  std::map<std::string, Section, std::less<>> sections;
};

IniFile read_ini(std::string path) {
  IniFile file;
  file.path = std::move(path);
  std::ifstream in(file.path);
  if (!in) return file;
  file.exists = true;
  Section* current = nullptr;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) continue;
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == '#' || t.front() == ';') continue;
    if (t.front() == '[') {
      const std::size_t close = t.find(']');
      current = close == std::string_view::npos ? nullptr : &file.sections[std::string(trim(t.substr(1, close - 1)))];
      continue;
    }
    const std::size_t eq = t.find('=');
    if (!current || eq == std::string_view::npos) continue;
    (*current)[lower(trim(t.substr(0, eq)))] = std::string(trim(t.substr(eq + 1)));
  }
  return file;
}

// The config file names profiles "[profile x]" (the default may be either
// "[default]" or "[profile default]"); the credentials file names them "[x]".
const Section* config_section(const IniFile& config, const std::string& profile) {
  if (auto it = config.sections.find("profile " + profile); it != config.sections.end()) return &it->second;
  if (profile == "default")
    if (auto it = config.sections.find("default"); it != config.sections.end()) return &it->second;
  return nullptr;
}

const Section* credentials_section(const IniFile& credentials, const std::string& profile) {
  auto it = credentials.sections.find(profile);
  return it == credentials.sections.end() ? nullptr : &it->second;
}

std::optional<std::string> value(const Section* section, std::string_view key) {
  if (!section) return std::nullopt;
  auto it = section->find(key);
  if (it == section->end() || it->second.empty()) return std::nullopt;
  return it->second;
}

bool loopback_host(std::string_view host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.") || host.ends_with(".localhost");
}

// The two files, read once and only if needed.
class Profiles {
 public:
  Profiles(const Environment& env, std::string profile, bool profile_explicit)
      : env_(env), profile_(std::move(profile)), profile_explicit_(profile_explicit) {}

  const std::string& profile() const { return profile_; }

  const IniFile& credentials() {
    load();
    return credentials_;
  }
  const IniFile& config() {
    load();
    return config_;
  }

 private:
  void load() {
    if (loaded_) return;
    loaded_ = true;
    const std::optional<std::string> home = env_.get("HOME");
    const auto default_path = [&](const char* name) { return home ? *home + "/.aws/" + name : std::string(); };
    credentials_ = read_ini(env_.get("AWS_SHARED_CREDENTIALS_FILE").value_or(default_path("credentials")));
    config_ = read_ini(env_.get("AWS_CONFIG_FILE").value_or(default_path("config")));
    // A profile the user asked for by name must exist; silently falling back
    // to other credentials would sign with the wrong identity.
    if (profile_explicit_ && !credentials_section(credentials_, profile_) && !config_section(config_, profile_))
      throw InvalidArgument("AWS profile '" + profile_ + "' not found in '" + credentials_.path + "' or '" +
                            config_.path + "'");
  }

  const Environment& env_;
  std::string profile_;
  bool profile_explicit_;
  bool loaded_ = false;
  IniFile credentials_;
  IniFile config_;
};

std::optional<Credentials> credentials_from(const Section* section) {
  auto key = value(section, "aws_access_key_id");
  auto secret = value(section, "aws_secret_access_key");
  if (!key || !secret) return std::nullopt;
  return Credentials{std::move(*key), std::move(*secret), value(section, "aws_session_token").value_or("")};
}

}  // namespace

Environment Environment::process() {
  return Environment([](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  });
}

Environment Environment::from_map(std::map<std::string, std::string, std::less<>> vars) {
  return Environment([vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  });
}

std::optional<std::string> Environment::get(std::string_view name) const {
  std::optional<std::string> v = lookup_(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

Endpoint Endpoint::parse(std::string_view url) {
  const auto bad = [&](const char* why) {
    return InvalidArgument("invalid endpoint URL '" + std::string(url) + "': " + why);
  };
  // The host and path go into the request line and Host header verbatim.
  if (std::any_of(url.begin(), url.end(), [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }))
    throw bad("contains a space or control character");
  Endpoint e;
  std::string_view rest;
  if (url.starts_with("https://")) {
    e.tls = true;
    e.port = 443;
    rest = url.substr(8);
  } else if (url.starts_with("http://")) {
    e.tls = false;
    e.port = 80;
    rest = url.substr(7);
  } else {
    throw bad("expected http:// or https://");
  }
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) e.path = std::string(rest.substr(slash));
  if (authority.find('@') != std::string_view::npos) throw bad("user info is not supported");
  std::string_view port_text;
  if (authority.starts_with('[')) {  // IPv6 literal
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) throw bad("unterminated IPv6 literal");
    e.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') throw bad("junk after IPv6 literal");
      port_text = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.rfind(':');
    e.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (e.host.empty()) throw bad("no host");
  if (!port_text.empty()) {
    unsigned port = 0;
    auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || p != port_text.data() + port_text.size() || port == 0 || port > 65535)
      throw bad("bad port");
    e.port = static_cast<std::uint16_t>(port);
  }
  if (e.path.find_first_of("?#") != std::string::npos) throw bad("query and fragment are not supported");
  return e;
}

std::string Endpoint::host_header() const {
  std::string h;
  if (host.find(':') != std::string::npos)
    h.append("[").append(host).append("]");  // an IPv6 literal
  else
    h = host;
  if (port != (tls ? 443 : 80)) h.append(":").append(std::to_string(port));
  return h;
}

std::string Endpoint::url() const { return (tls ? "https://" : "http://") + host_header() + path; }

bool Endpoint::is_local() const { return !tls || loopback_host(host); }

Settings resolve_settings(const SettingsOverrides& overrides, const Environment& env) {
  std::optional<std::string> named_profile = overrides.profile ? overrides.profile : env.get("AWS_PROFILE");
  Profiles profiles(env, named_profile.value_or("default"), named_profile.has_value());

  Settings s;
  std::optional<std::string> endpoint_url = overrides.endpoint_url;
  if (!endpoint_url) endpoint_url = env.get("AWS_ENDPOINT_URL_DYNAMODB");
  if (!endpoint_url) endpoint_url = env.get("AWS_ENDPOINT_URL");
  std::optional<Endpoint> endpoint;
  if (endpoint_url) endpoint = Endpoint::parse(*endpoint_url);
  const bool local = endpoint && endpoint->is_local();

  std::optional<std::string> region = overrides.region;
  if (!region) region = env.get("AWS_REGION");
  if (!region) region = env.get("AWS_DEFAULT_REGION");
  if (!region) region = value(config_section(profiles.config(), profiles.profile()), "region");
  if (!region) {
    if (!local)
      throw InvalidArgument("no AWS region: set one explicitly, or AWS_REGION / AWS_DEFAULT_REGION, or 'region' in "
                            "profile '" + profiles.profile() + "' of '" + profiles.config().path + "'");
    region = "us-east-1";  // any region works against a local server
  }
  s.region = std::move(*region);
  s.endpoint = endpoint ? std::move(*endpoint) : Endpoint::parse("https://dynamodb." + s.region + ".amazonaws.com");

  if (overrides.credentials) {
    s.credentials = *overrides.credentials;
    s.credentials_source = "explicit";
    return s;
  }
  const std::optional<std::string> env_key = env.get("AWS_ACCESS_KEY_ID");
  const std::optional<std::string> env_secret = env.get("AWS_SECRET_ACCESS_KEY");
  if (env_key.has_value() != env_secret.has_value())
    throw InvalidArgument(std::string("incomplete AWS credentials in the environment: ") +
                          (env_key ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID") + " is not set");
  if (env_key) {
    s.credentials = {*env_key, *env_secret, env.get("AWS_SESSION_TOKEN").value_or("")};
    s.credentials_source = "environment";
    return s;
  }
  const IniFile& creds_file = profiles.credentials();
  if (auto c = credentials_from(credentials_section(creds_file, profiles.profile()))) {
    s.credentials = std::move(*c);
    s.credentials_source = "shared credentials file " + creds_file.path + " [" + profiles.profile() + "]";
    return s;
  }
  const IniFile& config_file = profiles.config();
  if (auto c = credentials_from(config_section(config_file, profiles.profile()))) {
    s.credentials = std::move(*c);
    s.credentials_source = "config file " + config_file.path + " [" + profiles.profile() + "]";
    return s;
  }
  if (!s.endpoint.is_local())
    throw InvalidArgument("no AWS credentials for " + s.endpoint.url() +
                          ": looked for explicit credentials, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profile '" +
                          profiles.profile() + "' in '" + creds_file.path + "'" +
                          (creds_file.exists ? "" : " (missing)") + " and in '" + config_file.path + "'" +
                          (config_file.exists ? "" : " (missing)"));
  // Letters and digits only: DynamoDB Local rejects other access key ids.
  s.credentials = {"harellocal", "harellocal", ""};
  s.credentials_source = "dummy (local endpoint)";
  return s;
}

}  // namespace harel::dynamodb
