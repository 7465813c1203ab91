#include "harel/dynamodb/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harel/errors.h"

namespace harel::dynamodb {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// A throwaway HOME with optional ~/.aws files; removed afterwards.
class TempHome {
 public:
  TempHome() {
    std::string templ = (fs::temp_directory_path() / "harel-home-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
    fs::create_directories(dir_ / ".aws");
  }
  ~TempHome() { fs::remove_all(dir_); }
  std::string path() const { return dir_.string(); }
  std::string write(const std::string& relative, const std::string& text) const {
    std::ofstream(dir_ / relative) << text;
    return (dir_ / relative).string();
  }

 private:
  fs::path dir_;
};

Settings resolve(std::map<std::string, std::string, std::less<>> env, SettingsOverrides o = {}) {
  return resolve_settings(o, Environment::from_map(std::move(env)));
}

TEST(Settings, ExplicitValuesWinOverEverything) {
  TempHome home;
  home.write(".aws/credentials", "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n");
  SettingsOverrides o;
  o.credentials = Credentials{"EXPLICIT", "explicit-secret", "tok"};
  o.region = "eu-north-1";
  o.endpoint_url = "https://example.test:8443/";
  const Settings s = resolve({{"HOME", home.path()},
                              {"AWS_ACCESS_KEY_ID", "ENVKEY"},
                              {"AWS_SECRET_ACCESS_KEY", "envsecret"},
                              {"AWS_REGION", "us-west-2"},
                              {"AWS_ENDPOINT_URL", "http://localhost:1"}},
                             o);
  EXPECT_EQ(s.credentials.access_key_id, "EXPLICIT");
  EXPECT_EQ(s.credentials.session_token, "tok");
  EXPECT_EQ(s.credentials_source, "explicit");
  EXPECT_EQ(s.region, "eu-north-1");
  EXPECT_EQ(s.endpoint.host, "example.test");
  EXPECT_EQ(s.endpoint.port, 8443);
  EXPECT_TRUE(s.endpoint.tls);
  EXPECT_EQ(s.endpoint.host_header(), "example.test:8443");
}

TEST(Settings, EnvironmentBeatsFilesAndDefaultsTheEndpointFromTheRegion) {
  TempHome home;
  home.write(".aws/credentials", "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n");
  home.write(".aws/config", "[default]\nregion = ap-south-1\n");
  const Settings s = resolve({{"HOME", home.path()},
                              {"AWS_ACCESS_KEY_ID", "ENVKEY"},
                              {"AWS_SECRET_ACCESS_KEY", "envsecret"},
                              {"AWS_SESSION_TOKEN", "envtoken"},
                              {"AWS_DEFAULT_REGION", "sa-east-1"}});
  EXPECT_EQ(s.credentials.access_key_id, "ENVKEY");
  EXPECT_EQ(s.credentials.session_token, "envtoken");
  EXPECT_EQ(s.credentials_source, "environment");
  EXPECT_EQ(s.region, "sa-east-1");  // AWS_DEFAULT_REGION beats the config file
  EXPECT_EQ(s.endpoint.url(), "https://dynamodb.sa-east-1.amazonaws.com/");
  EXPECT_EQ(s.endpoint.host_header(), "dynamodb.sa-east-1.amazonaws.com");
}

TEST(Settings, AwsRegionBeatsAwsDefaultRegion) {
  const Settings s =
      resolve({{"AWS_REGION", "us-east-2"}, {"AWS_DEFAULT_REGION", "us-west-1"}, {"AWS_ACCESS_KEY_ID", "K"},
               {"AWS_SECRET_ACCESS_KEY", "S"}});
  EXPECT_EQ(s.region, "us-east-2");
}

TEST(Settings, ProfileFromCredentialsAndConfigFiles) {
  TempHome home;
  home.write(".aws/credentials",
             "# comment\n[default]\naws_access_key_id = DEFKEY\naws_secret_access_key = defsecret\n\n"
             "[work]\naws_access_key_id=WORKKEY\naws_secret_access_key=worksecret\naws_session_token = worktoken\n");
  home.write(".aws/config",
             "[default]\nregion = us-east-1\n[profile work]\nregion = eu-west-3\ns3 =\n  max_concurrent_requests = 2\n");
  const Settings s = resolve({{"HOME", home.path()}, {"AWS_PROFILE", "work"}});
  EXPECT_EQ(s.credentials.access_key_id, "WORKKEY");
  EXPECT_EQ(s.credentials.secret_access_key, "worksecret");
  EXPECT_EQ(s.credentials.session_token, "worktoken");
  EXPECT_EQ(s.region, "eu-west-3");
  EXPECT_THAT(s.credentials_source, AllOf(HasSubstr("shared credentials file"), HasSubstr("[work]")));

  const Settings d = resolve({{"HOME", home.path()}});
  EXPECT_EQ(d.credentials.access_key_id, "DEFKEY");
  EXPECT_EQ(d.region, "us-east-1");
}

TEST(Settings, CredentialsMayLiveInTheConfigFileAndPathsComeFromTheEnvironment) {
  TempHome home;
  const std::string config =
      home.write("custom-config", "[profile ci]\nregion = ca-central-1\naws_access_key_id = CFGKEY\n"
                                  "aws_secret_access_key = cfgsecret\n");
  const std::string creds = home.write("custom-creds", "[other]\naws_access_key_id = X\naws_secret_access_key = Y\n");
  const Settings s = resolve(
      {{"AWS_CONFIG_FILE", config}, {"AWS_SHARED_CREDENTIALS_FILE", creds}, {"AWS_PROFILE", "ci"}});
  EXPECT_EQ(s.credentials.access_key_id, "CFGKEY");
  EXPECT_EQ(s.region, "ca-central-1");
  EXPECT_THAT(s.credentials_source, HasSubstr("config file " + config));
}

TEST(Settings, ExplicitProfileBeatsAwsProfile) {
  TempHome home;
  home.write(".aws/credentials", "[a]\naws_access_key_id = AKEY\naws_secret_access_key = as\n"
                                 "[b]\naws_access_key_id = BKEY\naws_secret_access_key = bs\n");
  SettingsOverrides o;
  o.profile = "b";
  o.region = "us-east-1";
  EXPECT_EQ(resolve({{"HOME", home.path()}, {"AWS_PROFILE", "a"}}, o).credentials.access_key_id, "BKEY");
}

TEST(Settings, UnknownNamedProfileIsAnError) {
  TempHome home;
  home.write(".aws/credentials", "[default]\naws_access_key_id = K\naws_secret_access_key = S\n");
  EXPECT_THROW(resolve({{"HOME", home.path()}, {"AWS_PROFILE", "nope"}, {"AWS_REGION", "us-east-1"}}),
               InvalidArgument);
}

TEST(Settings, EndpointPrecedence) {
  const std::map<std::string, std::string, std::less<>> base = {
      {"AWS_REGION", "us-east-1"}, {"AWS_ACCESS_KEY_ID", "K"}, {"AWS_SECRET_ACCESS_KEY", "S"}};
  auto env = base;
  env["AWS_ENDPOINT_URL"] = "http://127.0.0.1:4566";
  EXPECT_EQ(resolve(env).endpoint.url(), "http://127.0.0.1:4566/");
  env["AWS_ENDPOINT_URL_DYNAMODB"] = "http://localhost:8000";
  EXPECT_EQ(resolve(env).endpoint.url(), "http://localhost:8000/");
  SettingsOverrides o;
  o.endpoint_url = "https://[::1]:9443";
  const Settings s = resolve(env, o);
  EXPECT_EQ(s.endpoint.host, "::1");
  EXPECT_EQ(s.endpoint.host_header(), "[::1]:9443");
}

TEST(Settings, LocalEndpointWorksWithoutAnySetup) {
  TempHome home;  // no files at all
  const Settings s = resolve({{"HOME", home.path()}, {"AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:8000"}});
  EXPECT_EQ(s.region, "us-east-1");
  EXPECT_FALSE(s.credentials.access_key_id.empty());
  EXPECT_FALSE(s.credentials.secret_access_key.empty());
  EXPECT_EQ(s.credentials_source, "dummy (local endpoint)");
  EXPECT_EQ(s.endpoint.host_header(), "127.0.0.1:8000");
}

TEST(Settings, MissingCredentialsForAwsNameEveryPlaceSearched) {
  TempHome home;
  try {
    resolve({{"HOME", home.path()}, {"AWS_REGION", "us-east-1"}});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, HasSubstr("AWS_ACCESS_KEY_ID"));
    EXPECT_THAT(what, HasSubstr(home.path() + "/.aws/credentials"));
    EXPECT_THAT(what, HasSubstr(home.path() + "/.aws/config"));
    EXPECT_THAT(what, HasSubstr("'default'"));
  }
}

TEST(Settings, MissingRegionForAwsIsAnError) {
  TempHome home;
  EXPECT_THROW(resolve({{"HOME", home.path()}, {"AWS_ACCESS_KEY_ID", "K"}, {"AWS_SECRET_ACCESS_KEY", "S"}}),
               InvalidArgument);
}

TEST(Settings, HalfAKeyPairIsAnErrorThatDoesNotLeakTheOtherHalf) {
  try {
    resolve({{"AWS_REGION", "us-east-1"}, {"AWS_ACCESS_KEY_ID", "AKIDLEAKCHECK"}});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("AWS_SECRET_ACCESS_KEY"), Not(HasSubstr("AKIDLEAKCHECK"))));
  }
}

TEST(Settings, SecretsNeverAppearInErrors) {
  TempHome home;
  home.write(".aws/credentials", "[p]\naws_access_key_id = KEYLEAK\naws_secret_access_key = SECRETLEAK\n");
  try {
    // Profile exists with credentials but the region is missing.
    resolve({{"HOME", home.path()}, {"AWS_PROFILE", "p"}});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), AllOf(Not(HasSubstr("SECRETLEAK")), Not(HasSubstr("KEYLEAK"))));
  }
}

TEST(Endpoint, ParsesAndRejects) {
  const Endpoint e = Endpoint::parse("http://localhost:8000");
  EXPECT_FALSE(e.tls);
  EXPECT_EQ(e.port, 8000);
  EXPECT_EQ(e.path, "/");
  EXPECT_TRUE(e.is_local());
  EXPECT_EQ(Endpoint::parse("https://dynamodb.us-east-1.amazonaws.com").port, 443);
  EXPECT_FALSE(Endpoint::parse("https://dynamodb.us-east-1.amazonaws.com").is_local());
  EXPECT_TRUE(Endpoint::parse("https://127.0.0.1:9000").is_local());
  EXPECT_EQ(Endpoint::parse("http://h:80/").host_header(), "h");
  for (const char* bad : {"ftp://x", "http://", "http://x:0", "http://x:99999", "http://x:12ab", "dynamodb",
                          "http://user@host", "http://h/?q=1", "http://h/a b", "http://h\r\nX-Evil: 1/",
                          "http://h:8000/\t"})
    EXPECT_THROW(Endpoint::parse(bad), InvalidArgument) << bad;
}

TEST(Environment, EmptyCountsAsUnset) {
  const Environment env = Environment::from_map({{"A", ""}, {"B", "x"}});
  EXPECT_FALSE(env.get("A").has_value());
  EXPECT_EQ(env.get("B"), "x");
  EXPECT_FALSE(env.get("C").has_value());
}

}  // namespace
}  // namespace harel::dynamodb
