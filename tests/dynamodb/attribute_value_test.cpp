#include "harel/dynamodb/attribute_value.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "harel/errors.h"

namespace harel::dynamodb {
namespace {

namespace json = boost::json;

TEST(AttributeValue, BuildersProduceTheWireForm) {
  json::object item;
  item.emplace("id", av::S("x1"));
  item.emplace("version", av::N(3));
  item.emplace("big", av::N(std::uint64_t{18446744073709551615u}));
  item.emplace("min", av::N(std::int64_t{-9223372036854775807 - 1}));
  item.emplace("fire_at", av::N("1700000000.123456789"));
  item.emplace("ok", av::BOOL(true));
  item.emplace("target_id", av::Null());
  item.emplace("raw", av::B(std::string("\x00\xff\x10", 3)));
  item.emplace("tags", av::SS({"a", "b"}));
  item.emplace("nums", av::NS({"1", "2.5"}));
  EXPECT_EQ(json::serialize(item),
            R"({"id":{"S":"x1"},"version":{"N":"3"},"big":{"N":"18446744073709551615"},)"
            R"("min":{"N":"-9223372036854775808"},"fire_at":{"N":"1700000000.123456789"},"ok":{"BOOL":true},)"
            R"("target_id":{"NULL":true},"raw":{"B":"AP8Q"},"tags":{"SS":["a","b"]},"nums":{"NS":["1","2.5"]}})");
}

TEST(AttributeValue, ReadersReturnTheTypedValues) {
  const json::object item = json::parse(
      R"({"id":{"S":"café-✓"},"version":{"N":"42"},"n":{"N":"123456789012345678901234567890.000000001"},)"
      R"("b":{"B":"AP8Q"},"f":{"BOOL":false},"z":{"NULL":true},"m":{"M":{"k":{"S":"v"}}},"l":{"L":[{"N":"1"}]}})")
                                .as_object();
  EXPECT_EQ(av::get_S(item, "id"), "café-✓");
  EXPECT_EQ(av::get_int(item, "version"), 42);
  EXPECT_EQ(av::get_N(item, "n"), "123456789012345678901234567890.000000001");
  EXPECT_EQ(av::get_B(item, "b"), std::string("\x00\xff\x10", 3));
  EXPECT_FALSE(av::get_BOOL(item, "f"));
  EXPECT_TRUE(av::is_null(av::at(item, "z")));
  EXPECT_FALSE(av::is_null(av::at(item, "f")));
  EXPECT_EQ(av::get_S(av::as_M(av::at(item, "m")), "k"), "v");
  EXPECT_EQ(av::as_int(av::as_L(av::at(item, "l")).at(0)), 1);
  EXPECT_EQ(av::find(item, "absent"), nullptr);
}

TEST(AttributeValue, ReadersRejectMissingAndMistypedAttributes) {
  const json::object item = json::parse(R"({"id":{"N":"1"},"big":{"N":"9223372036854775808"},"frac":{"N":"1.5"}})")
                                .as_object();
  try {
    av::get_S(item, "id");
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_EQ(e.field(), "id");
  }
  EXPECT_THROW(av::get_S(item, "missing"), DecodeError);
  EXPECT_THROW(av::get_int(item, "big"), DecodeError);  // beyond int64: never wrapped
  EXPECT_THROW(av::get_int(item, "frac"), DecodeError);
  EXPECT_EQ(av::get_N(item, "big"), "9223372036854775808");
}

TEST(AttributeValue, NumbersStayExactText) {
  for (const char* text : {"0", "-0.0", "0.1", "1e-130", "9.9999999999999999999999999999999999999E+125",
                           "12345678901234567890123456789012345678", "007", "-3.14159265358979323846264338327950288"}) {
    const json::value v = av::N(text);
    EXPECT_EQ(av::number_text(v), text);
    // And through a serialize/parse round trip, as on the wire.
    EXPECT_EQ(av::number_text(json::parse(json::serialize(v))), text);
  }
  for (const char* bad : {"", "-", "1.", ".5", "1e", "0x10", "NaN", "Infinity", "1,5", " 1", "+1"})
    EXPECT_THROW(av::N(bad), InvalidArgument) << bad;
}

TEST(AttributeValue, EmptyAndDuplicateSetsAreRejected) {
  EXPECT_THROW(av::SS(std::vector<std::string>{}), InvalidArgument);
  EXPECT_THROW(av::NS(std::vector<std::string>{}), InvalidArgument);
  EXPECT_THROW(av::BS(std::vector<std::string>{}), InvalidArgument);
  EXPECT_THROW(av::SS({"a", "a"}), InvalidArgument);
  EXPECT_THROW(av::NS({"1", "x"}), InvalidArgument);
  EXPECT_EQ(json::serialize(av::BS({std::string_view("\x01", 1), "hi"})), R"({"BS":["AQ==","aGk="]})");
}

TEST(AttributeValue, PlainJsonRoundTrip) {
  const json::value plain = json::parse(
      R"({"s":"ünïcode ✓","i":-42,"u":18446744073709551615,"d":0.1,"t":true,"n":null,)"
      R"("o":{"nested":[1,"two",{"three":3.5}]},"e":[],"eo":{}})");
  const json::object item = av::to_item(plain.as_object());
  EXPECT_EQ(json::serialize(item.at("d")), R"({"N":"0.1"})");  // shortest text, not 0.1000000000000000055...
  EXPECT_EQ(json::serialize(item.at("u")), R"({"N":"18446744073709551615"})");
  EXPECT_EQ(json::serialize(item.at("e")), R"({"L":[]})");
  EXPECT_EQ(av::from_item(item), plain.as_object());
}

TEST(AttributeValue, TextModeKeepsEveryNumberExact) {
  const json::object item =
      json::parse(R"({"n":{"N":"123456789012345678901234567890.5"},"s":{"NS":["1","0.30000000000000000001"]}})")
          .as_object();
  const json::object text = av::from_item(item, av::Numbers::Text);
  EXPECT_EQ(text.at("n"), "123456789012345678901234567890.5");
  EXPECT_EQ(text.at("s"), json::array({"1", "0.30000000000000000001"}));
  const json::object native = av::from_item(item);
  EXPECT_TRUE(native.at("n").is_double());
  EXPECT_EQ(native.at("s").as_array().at(0), 1);
}

TEST(AttributeValue, GenericConversionOfSetsAndBinary) {
  const json::value v = json::parse(R"({"SS":["a","b"]})");
  EXPECT_EQ(av::from_attribute_value(v), json::array({"a", "b"}));
  EXPECT_EQ(av::from_attribute_value(av::B("hi")), "aGk=");
  EXPECT_THROW(av::from_attribute_value(json::parse(R"({"X":1})")), DecodeError);
  EXPECT_THROW(av::from_attribute_value(json::parse(R"({"S":"a","N":"1"})")), DecodeError);
  EXPECT_THROW(av::from_attribute_value(json::parse(R"({"N":"abc"})")), DecodeError);
  EXPECT_THROW(av::to_attribute_value(json::value(std::numeric_limits<double>::infinity())), InvalidArgument);
}

TEST(AttributeValue, MalformedNestedAttributeNamesItsPath) {
  const json::object item = json::parse(R"({"a":{"M":{"b":{"N":"x"}}}})").as_object();
  try {
    av::from_item(item);
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_EQ(e.field(), "a.b");
  }
}

}  // namespace
}  // namespace harel::dynamodb
