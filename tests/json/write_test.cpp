#include "harel/json/write.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <random>

#include "harel/json/parse.h"

namespace harel::json {
namespace {

std::string compact(double d) {
  std::string s;
  write_double(s, d, Style::Compact);
  return s;
}

std::string python(double d) {
  std::string s;
  write_double(s, d, Style::Python);
  return s;
}

TEST(WriteDouble, MatchesPydanticShortestForm) {
  EXPECT_EQ(compact(0.1), "0.1");
  EXPECT_EQ(compact(12.5), "12.5");
  EXPECT_EQ(compact(1.0), "1.0");
  EXPECT_EQ(compact(-2.0), "-2.0");
  EXPECT_EQ(compact(0.0), "0.0");
  EXPECT_EQ(compact(1e15), "1000000000000000.0");
  EXPECT_EQ(compact(1e16), "1e16");
  EXPECT_EQ(compact(1.5e20), "1.5e20");
  EXPECT_EQ(compact(0.00001), "0.00001");
  EXPECT_EQ(compact(1e-6), "1e-6");
  EXPECT_EQ(compact(1764669600.25), "1764669600.25");
}

TEST(WriteDouble, MatchesPythonRepr) {
  EXPECT_EQ(python(0.1), "0.1");
  EXPECT_EQ(python(1.0), "1.0");
  EXPECT_EQ(python(1e15), "1000000000000000.0");
  EXPECT_EQ(python(1e16), "1e+16");
  EXPECT_EQ(python(1.5e20), "1.5e+20");
  EXPECT_EQ(python(0.0001), "0.0001");
  EXPECT_EQ(python(0.00001), "1e-05");
  EXPECT_EQ(python(1764669600.25), "1764669600.25");
}

TEST(WriteDouble, NonFiniteBecomesNull) {
  EXPECT_EQ(compact(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(python(std::nan("")), "null");
}

TEST(WriteValue, CompactKeepsUtf8AndEscapesControls) {
  auto v = boost::json::parse(R"({"a":"café ✓ \"q\" \\ \n\u0001","b":[1,true,null]})");
  EXPECT_EQ(to_string(v), "{\"a\":\"café ✓ \\\"q\\\" \\\\ \\n\\u0001\",\"b\":[1,true,null]}");
}

TEST(WriteValue, PythonStyleMatchesJsonDumps) {
  // json.dumps({"seed": 1, "s": "café ✓ 😀", "l": [1.5, None]})
  auto v = boost::json::parse(R"({"seed":1,"s":"café ✓ 😀","l":[1.5,null]})");
  EXPECT_EQ(to_string(v, Style::Python),
            R"({"seed": 1, "s": "caf\u00e9 \u2713 \ud83d\ude00", "l": [1.5, null]})");
}

TEST(WriteValue, RoundTripsThroughBoostParse) {
  const std::string text = R"({"n":-12345678901234,"u":18446744073709551615,"f":-0.5,"e":[],"o":{}})";
  EXPECT_EQ(to_string(boost::json::parse(text)), text);
}

// Boost.JSON 1.81 rounds some decimals to the neighbouring double; ours must
// not, or a context value would drift on every load → save.
TEST(Parse, DoublesReadBackExactlyAsWritten) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(0, 1e9);
  std::vector<double> samples{3.777777777777778e107, 0.1, 1e-300, 123456.789};
  for (int i = 0; i < 2000; ++i) samples.push_back(dist(rng));
  for (double d : samples) {
    std::string text;
    write_double(text, d);
    boost::system::error_code ec;
    const boost::json::value v = parse("[" + text + "]", ec);
    ASSERT_FALSE(ec) << text;
    EXPECT_EQ(v.as_array()[0].as_double(), d) << text;
  }
}

TEST(Parse, ParsesEveryKindAndRejectsGarbage) {
  boost::system::error_code ec;
  const auto v = parse(R"({"a":[1,-2,18446744073709551615,2.5,true,null,"s\u00e9"],"b":{}})", ec);
  ASSERT_FALSE(ec);
  EXPECT_EQ(to_string(v), R"({"a":[1,-2,18446744073709551615,2.5,true,null,"sé"],"b":{}})");
  for (const char* bad : {"", "{", "[1,]", "1 2", "{\"a\"}", "nul"}) {
    boost::system::error_code e;
    parse(bad, e);
    EXPECT_TRUE(e) << bad;
  }
}

}  // namespace
}  // namespace harel::json
