#include "harel/model/codec.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "harel/errors.h"
#include "vectors.h"

namespace harel {
namespace {

namespace bj = boost::json;
using testing::read_vector;

class ExecutionVector : public ::testing::TestWithParam<const char*> {};

TEST_P(ExecutionVector, RoundTripsByteForByte) {
  const std::string text = read_vector(GetParam());
  const Execution exe = parse_execution(text);
  EXPECT_EQ(to_json(exe), text);
}

INSTANTIATE_TEST_SUITE_P(Vectors, ExecutionVector,
                         ::testing::Values("execution_minimal.json", "execution_rich.json",
                                           "execution_child_failed.json"));

class EventVector : public ::testing::TestWithParam<const char*> {};

TEST_P(EventVector, RoundTripsByteForByte) {
  const std::string text = read_vector(GetParam());
  EXPECT_EQ(to_json(parse_event(text)), text);
}

INSTANTIATE_TEST_SUITE_P(Vectors, EventVector, ::testing::Values("event_full.json", "event_minimal.json"));

TEST(ExecutionCodec, ReadsEveryFieldOfTheRichVector) {
  const Execution e = parse_execution(read_vector("execution_rich.json"));
  EXPECT_EQ(e.id, "parent-1");
  EXPECT_EQ(e.definition_fqn, "shop.order");
  EXPECT_EQ(e.status, Status::Running);
  EXPECT_EQ(e.active_path, "Fulfil.Packing");
  ASSERT_EQ(e.history.size(), 1u);
  EXPECT_EQ(e.history.begin()->second, "Fulfil.Packing");
  EXPECT_EQ(e.context.at("uni").as_string(), "café ✓");
  EXPECT_EQ(e.context.at("nested").as_object().at("big").as_int64(), 12345678901234);
  EXPECT_EQ(e.processed_events, 7);
  EXPECT_EQ(e.version, 3);
  EXPECT_EQ(e.priority, 2);
  ASSERT_EQ(e.deferred.size(), 1u);
  EXPECT_EQ(e.deferred[0].kind, "Later");
  ASSERT_EQ(e.children.size(), 2u);
  const auto& a = e.children.find("parent-1.Fork.A.0")->second;
  EXPECT_TRUE(a.finished);
  EXPECT_EQ(a.outcome, "success");
  EXPECT_EQ(a.key, "A");
  EXPECT_FALSE(e.children.find("parent-1.Fork.B.0")->second.outcome.has_value());
  EXPECT_EQ(e.invoke_seq.find("Fork")->second, 1);
  EXPECT_TRUE(e.extra.empty());
}

TEST(ExecutionCodec, DefaultsMissingOptionalFields) {
  const Execution e = parse_execution(R"({"id":"a","definition_id":"d"})");
  EXPECT_EQ(e.status, Status::Pending);
  EXPECT_EQ(e.version, 0);
  EXPECT_EQ(to_json(e),
            R"({"id":"a","definition_id":"d","definition_fqn":null,"root_path":"","status":"PENDING","outcome":null,)"
            R"("error":null,"active_path":null,"history":{},"context":{},"processed_events":0,"version":0,"priority":0,)"
            R"("parent_id":null,"child_id":null,"deferred":[],"children":{},"invoke_seq":{}})");
}

TEST(ExecutionCodec, KeepsUnknownFieldsInOrder) {
  std::string text = read_vector("execution_minimal.json");
  text.insert(text.size() - 1, R"(,"zeta":{"k":[1,2.5]},"alpha":"new")");
  text.insert(text.find("\"history\""), R"("future_field":true,)");
  const Execution e = parse_execution(text);
  ASSERT_EQ(e.extra.size(), 3u);
  const std::string written = to_json(e);
  // Known fields return to their canonical places; unknown ones follow, in read order.
  EXPECT_NE(written.find(R"("invoke_seq":{},"future_field":true,"zeta":{"k":[1,2.5]},"alpha":"new"})"),
            std::string::npos)
      << written;
  EXPECT_EQ(to_json(parse_execution(written)), written);
}

TEST(ExecutionCodec, KeepsUnknownFieldsOfNestedEventsAndChildren) {
  const std::string text =
      R"({"id":"a","definition_id":"d","definition_fqn":null,"root_path":"","status":"RUNNING","outcome":null,)"
      R"("error":null,"active_path":null,"history":{},"context":{},"processed_events":0,"version":1,"priority":0,)"
      R"("parent_id":null,"child_id":null,"deferred":[{"id":"e","kind":"K","created_time":null,"received_time":null,)"
      R"("data":{},"trace_id":"t1"}],"children":{"c":{"root_path":"R","finished":false,"outcome":null,"result":{},)"
      R"("submachine":false,"key":"","weight":3}},"invoke_seq":{}})";
  EXPECT_EQ(to_json(parse_execution(text)), text);
}

// The field a decoder's DecodeError names, or "<no error>".
template <class Decode>
std::string field_of(Decode decode, const std::string& text) {
  try {
    decode(text);
  } catch (const DecodeError& e) {
    return e.field();
  }
  return "<no error>";
}

TEST(ExecutionCodec, RejectsMalformedInputNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {"not json", ""},
      {"[1,2]", ""},
      {R"("a string")", ""},
      {R"({"definition_id":"d"})", "id"},
      {R"({"id":"a"})", "definition_id"},
      {R"({"id":7,"definition_id":"d"})", "id"},
      {R"({"id":"a","definition_id":"d","status":"BOGUS"})", "status"},
      {R"({"id":"a","definition_id":"d","version":"3"})", "version"},
      {R"({"id":"a","definition_id":"d","version":-1})", "version"},
      {R"({"id":"a","definition_id":"d","priority":9})", "priority"},
      {R"({"id":"a","definition_id":"d","processed_events":18446744073709551615})", "processed_events"},
      {R"({"id":"a","definition_id":"d","outcome":1.5})", "outcome"},
      {R"({"id":"a","definition_id":"d","context":[]})", "context"},
      {R"({"id":"a","definition_id":"d","history":{"h":1}})", "history.h"},
      {R"({"id":"a","definition_id":"d","invoke_seq":{"s":"1"}})", "invoke_seq.s"},
      {R"({"id":"a","definition_id":"d","deferred":{}})", "deferred"},
      {R"({"id":"a","definition_id":"d","deferred":[{"id":"e","kind":"k"},5]})", "deferred[1]"},
      {R"({"id":"a","definition_id":"d","deferred":[{"id":"e"}]})", "deferred[0].kind"},
      {R"({"id":"a","definition_id":"d","deferred":[{"id":"e","kind":"k","data":null}]})", "deferred[0].data"},
      {R"({"id":"a","definition_id":"d","children":{"c":5}})", "children.c"},
      {R"({"id":"a","definition_id":"d","children":{"c":{"finished":"yes"}}})", "children.c.finished"},
  };
  for (const auto& [text, field] : cases) {
    EXPECT_EQ(field_of(parse_execution, text), field) << text;
    // A listing checks a record exactly as a load does.
    EXPECT_EQ(field_of(parse_execution_summary, text), field) << text;
  }
}

TEST(ExecutionCodec, TextThatIsNotJsonIsReportedAsSuchEvenAfterAWrongField) {
  try {
    parse_execution(R"({"id":7,"definition_id":"d",)");
    ADD_FAILURE() << "decoded";
  } catch (const DecodeError& e) {
    EXPECT_EQ(e.field(), "");
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
}

TEST(ExecutionCodec, RepeatedKeysKeepTheLastValue) {
  const Execution e = parse_execution(
      R"({"id":"a","id":"b","definition_id":"d","zeta":1,"history":{"x":"1"},"zeta":2,"history":{"y":"2"}})");
  EXPECT_EQ(e.id, "b");
  EXPECT_EQ(e.history.size(), 1u);
  EXPECT_EQ(e.history.find("y")->second, "2");
  EXPECT_EQ(bj::serialize(e.extra), R"({"zeta":2})");
}

TEST(ExecutionCodec, LongEscapedStringsAndKeysSurviveARoundTrip) {
  // Longer than the decoder's scratch space, with escapes: such strings
  // and keys reach the decoder in parts.
  std::string long_text;
  for (int i = 0; i < 2000; ++i) long_text += "\"q\"\n\u00e9";
  Execution exe;
  exe.id = long_text;
  exe.definition_id = "d";
  exe.active_path = long_text;
  exe.history[long_text] = long_text;
  exe.context[long_text] = long_text;
  exe.extra[long_text] = bj::array{long_text, 1.25};
  exe.invoke_seq[long_text] = 3;
  const Execution back = parse_execution(to_json(exe));
  EXPECT_EQ(back, exe);
  EXPECT_EQ(parse_execution_summary(to_json(exe)), ExecutionSummary::of(exe));
}

class SummaryVector : public ::testing::TestWithParam<const char*> {};

TEST_P(SummaryVector, IsTheSummaryOfTheWholeExecution) {
  const std::string text = read_vector(GetParam());
  EXPECT_EQ(parse_execution_summary(text), ExecutionSummary::of(parse_execution(text)));
}

INSTANTIATE_TEST_SUITE_P(Vectors, SummaryVector,
                         ::testing::Values("execution_minimal.json", "execution_rich.json",
                                           "execution_child_failed.json"));

TEST(EventCodec, KeepsTimestampsAsWritten) {
  const Event ev = parse_event(read_vector("event_full.json"));
  EXPECT_EQ(ev.created_time, "2026-12-02T10:00:00Z");
  EXPECT_EQ(ev.received_time, "2026-12-02T10:00:01.500000Z");
  EXPECT_DOUBLE_EQ(ev.data.at("amount").as_double(), 12.5);
}

}  // namespace
}  // namespace harel
