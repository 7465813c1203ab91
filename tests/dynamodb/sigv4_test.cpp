#include "dynamodb/sigv4.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include <boost/json/parse.hpp>

#include "vectors.h"

namespace harel::dynamodb::sigv4 {
namespace {

namespace json = boost::json;

constexpr std::string_view kSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

// botocore's vectors: DynamoDB JSON requests, with and without a session
// token, including a host with a non-default port.
TEST(SigV4, MatchesEveryBotocoreVector) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::vectors_dir() / "sigv4")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const json::object v = json::parse(testing::read_vector(std::filesystem::path("sigv4") / entry.path().filename()))
                               .as_object();
    const auto str = [&](std::string_view k) { return std::string(v.at(k).as_string()); };
    const std::string url = str("url");
    // "scheme://host[:port]/" → the Host header as sent.
    const std::string host = url.substr(url.find("//") + 2, url.find('/', url.find("//") + 2) - url.find("//") - 2);
    const std::string body = str("body");
    const std::string amz_date = str("amz_date");
    const std::string token = v.at("session_token").is_null() ? "" : str("session_token");

    std::vector<Header> headers;
    for (const auto& [name, value] : v.at("request_headers").as_object())
      headers.push_back({name, value.as_string()});
    headers.push_back({"Host", host});
    headers.push_back({"X-Amz-Date", amz_date});
    if (!token.empty()) headers.push_back({"X-Amz-Security-Token", token});
    const std::string payload_hash = sha256_hex(body);
    const std::string method = str("method");
    const Request request{method, "/", "", headers, payload_hash};
    const std::string region = str("region");
    const SigningKey key = derive_key(str("secret_access_key"), amz_date.substr(0, 8), region, str("service"));
    const Signed s = sign(request, str("access_key_id"), key, amz_date, region, str("service"));

    EXPECT_EQ(s.canonical_request, str("canonical_request"));
    EXPECT_EQ(s.string_to_sign, str("string_to_sign"));
    EXPECT_EQ(s.signature, str("signature"));
    EXPECT_EQ(s.authorization, str("authorization"));
    EXPECT_EQ(s.authorization, std::string_view(v.at("headers_after_signing").at("Authorization").as_string()));
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

// A few cases of AWS's published SigV4 test suite (aws-sig-v4-test-suite,
// region us-east-1, service "service", 20150830T123600Z, AKIDEXAMPLE).
struct SuiteCase {
  const char* name;
  const char* method;
  const char* path;
  const char* query;
  std::vector<std::pair<const char*, const char*>> headers;
  const char* body;
  const char* canonical_request;
  const char* signature;
  const char* signed_headers;
};

const SuiteCase kSuite[] = {
    {"get-vanilla", "GET", "/", "", {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}}, "",
     "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31", "host;x-amz-date"},
    {"get-vanilla-query-order-key-case", "GET", "/", "Param2=value2&Param1=value1",
     {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}}, "",
     "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
     "host;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500", "host;x-amz-date"},
    {"get-header-key-duplicate", "GET", "/", "",
     {{"Host", "example.amazonaws.com"},
      {"My-Header1", "value2"},
      {"My-Header1", "value2"},
      {"My-Header1", "value1"},
      {"X-Amz-Date", "20150830T123600Z"}},
     "",
     "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\n"
     "host;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea", "host;my-header1;x-amz-date"},
    {"get-header-value-trim", "GET", "/", "",
     {{"Host", "example.amazonaws.com"},
      {"My-Header1", " value1"},
      {"My-Header2", " \"a   b   c\""},
      {"X-Amz-Date", "20150830T123600Z"}},
     "",
     "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\n"
     "host;my-header1;my-header2;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736", "host;my-header1;my-header2;x-amz-date"},
    {"get-utf8", "GET", "/\xe1\x88\xb4", "", {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}},
     "",
     "GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85", "host;x-amz-date"},
    {"get-slashes (normalize-path)", "GET", "//example//", "",
     {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}}, "",
     "GET\n/example/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84", "host;x-amz-date"},
    {"post-sts-header-before", "POST", "/", "",
     {{"Host", "example.amazonaws.com"},
      {"X-Amz-Date", "20150830T123600Z"},
      {"X-Amz-Security-Token",
       "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8Y"
       "UuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE"
       "8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj"
       "2ICCR/oLxBA=="}},
     "", nullptr, "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead",
     "host;x-amz-date;x-amz-security-token"},
};

TEST(SigV4, MatchesAwsTestSuite) {
  const SigningKey key = derive_key(kSecret, "20150830", "us-east-1", "service");
  for (const SuiteCase& c : kSuite) {
    SCOPED_TRACE(c.name);
    std::vector<Header> headers;
    for (const auto& [n, v] : c.headers) headers.push_back({n, v});
    const std::string hash = sha256_hex(c.body);
    const Signed s = sign({c.method, c.path, c.query, headers, hash}, "AKIDEXAMPLE", key, "20150830T123600Z",
                          "us-east-1", "service");
    if (c.canonical_request) {
      EXPECT_EQ(s.canonical_request, c.canonical_request);
    }
    EXPECT_EQ(s.signature, c.signature);
    EXPECT_EQ(s.authorization, std::string("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/"
                                           "aws4_request, SignedHeaders=") +
                                   c.signed_headers + ", Signature=" + c.signature);
  }
}

TEST(SigV4, Sha256OfEmptyPayload) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(SigV4, SignatureDependsOnEverySignedPart) {
  const SigningKey key = derive_key(kSecret, "20150830", "us-east-1", "service");
  const Header h[] = {{"host", "example.amazonaws.com"}, {"x-amz-date", "20150830T123600Z"}};
  const std::string hash = sha256_hex("{}");
  const std::string base = sign({"POST", "/", "", h, hash}, "AKIDEXAMPLE", key, "20150830T123600Z", "us-east-1",
                                "service").signature;
  EXPECT_NE(base, sign({"POST", "/", "", h, sha256_hex("{} ")}, "AKIDEXAMPLE", key, "20150830T123600Z", "us-east-1",
                       "service").signature);
  const SigningKey other = derive_key(kSecret, "20150831", "us-east-1", "service");
  EXPECT_NE(base, sign({"POST", "/", "", h, hash}, "AKIDEXAMPLE", other, "20150830T123600Z", "us-east-1", "service")
                      .signature);
}

// The HMAC context keeps its last key between calls (MatchesAwsTestSuite
// signs seven requests with one): switching keys and back must not reuse a
// stale one.
TEST(SigV4, SwitchingKeysAndBackSignsAsFresh) {
  const SigningKey key = derive_key(kSecret, "20150830", "us-east-1", "service");
  const Header h[] = {{"host", "example.amazonaws.com"}, {"x-amz-date", "20150830T123600Z"}};
  const std::string hash = sha256_hex("");
  const auto signature = [&](const SigningKey& k) {
    return sign({"GET", "/", "", h, hash}, "AKIDEXAMPLE", k, "20150830T123600Z", "us-east-1", "service").signature;
  };
  const std::string expected = signature(key);
  EXPECT_EQ(expected, kSuite[0].signature);  // get-vanilla
  const SigningKey other = derive_key(kSecret, "20150831", "us-east-1", "service");
  EXPECT_NE(signature(other), expected);
  EXPECT_EQ(signature(key), expected);
  EXPECT_EQ(signature(key), expected);
}

}  // namespace
}  // namespace harel::dynamodb::sigv4
