#include "harel/runtime/actions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harel/errors.h"

namespace harel::runtime {
namespace {

namespace bj = boost::json;

// Runs builtin `name` with `args` against `context`; returns the emits.
class BuiltinTest : public ::testing::Test {
 protected:
  std::vector<Emit> run(std::string_view name, bj::object args) {
    const ActionRegistry registry = builtin_actions();
    const Action* action = registry.find(name);
    EXPECT_NE(action, nullptr);
    registry.check_args(name, args);
    std::vector<Emit> emits;
    ActionContext ctx{context, event, args, execution, emits, "x:1:"};
    (*action)(ctx);
    return emits;
  }

  bj::object context;
  Event event;
  Execution execution;
};

TEST_F(BuiltinTest, AssignMergesArgsIntoTheContext) {
  context = {{"a", 1}, {"b", 2}};
  run("assign", {{"b", 3}, {"c", "x"}});
  EXPECT_EQ(context, (bj::object{{"a", 1}, {"b", 3}, {"c", "x"}}));
}

TEST_F(BuiltinTest, IncrementCountsFromZeroAndKeepsIntegers) {
  run("increment", {{"field", "n"}});
  EXPECT_EQ(context.at("n"), bj::value(1));
  EXPECT_TRUE(context.at("n").is_int64());
  run("increment", {{"field", "n"}, {"by", 5}});
  EXPECT_EQ(context.at("n"), bj::value(6));
  run("increment", {{"field", "n"}, {"by", 0.5}});
  EXPECT_EQ(context.at("n"), bj::value(6.5));
}

TEST_F(BuiltinTest, IncrementRefusesANonNumber) {
  context = {{"n", "seven"}};
  EXPECT_THROW(run("increment", {{"field", "n"}}), InvalidArgument);
}

TEST_F(BuiltinTest, MergeEventDataCopiesTheEventsFields) {
  event.data = {{"method", "card"}, {"amount", 12}};
  context = {{"method", "cash"}, {"items", 2}};
  run("merge_event_data", {});
  EXPECT_EQ(context, (bj::object{{"method", "card"}, {"items", 2}, {"amount", 12}}));
}

TEST_F(BuiltinTest, EmitQueuesNumberedEventsWithCopiedFields) {
  context = {{"items", 3}};
  auto emits = run("emit", {{"target", "ledger"}, {"kind", "OrderDone"}, {"data", {{"k", 1}}},
                            {"copy", {"items", "missing"}}});
  ASSERT_EQ(emits.size(), 1u);
  EXPECT_EQ(emits[0].target_id, "ledger");
  EXPECT_EQ(emits[0].event.id, "x:1:0");
  EXPECT_EQ(emits[0].event.kind, "OrderDone");
  EXPECT_EQ(emits[0].event.data, (bj::object{{"k", 1}, {"items", 3}, {"missing", nullptr}}));
  EXPECT_FALSE(emits[0].event.created_time);
  EXPECT_FALSE(emits[0].event.received_time);
}

TEST_F(BuiltinTest, EmitResolvesParentAndNullTargets) {
  execution.id = "child";
  execution.parent_id = "mother";
  EXPECT_EQ(run("emit", {{"target", "$parent"}, {"kind", "Hi"}})[0].target_id, "mother");
  EXPECT_EQ(run("emit", {{"target", nullptr}, {"kind", "Hi"}})[0].target_id, std::nullopt);
  EXPECT_EQ(run("emit", {{"kind", "Hi"}})[0].target_id, std::nullopt);
  execution.parent_id.reset();
  EXPECT_THROW(run("emit", {{"target", "$parent"}, {"kind", "Hi"}}), InvalidArgument);
}

TEST(ActionRegistry, ChecksBuiltinArgs) {
  const ActionRegistry r = builtin_actions();
  EXPECT_THROW(r.check_args("increment", {{"field", 1}}), InvalidArgument);
  EXPECT_THROW(r.check_args("increment", {{"field", "n"}, {"by", "1"}}), InvalidArgument);
  EXPECT_THROW(r.check_args("increment", {{"field", "n"}, {"step", 1}}), InvalidArgument);
  EXPECT_THROW(r.check_args("emit", {{"target", "x"}}), InvalidArgument);
  EXPECT_THROW(r.check_args("emit", {{"kind", "K"}, {"target", 3}}), InvalidArgument);
  EXPECT_THROW(r.check_args("emit", {{"kind", "K"}, {"copy", "items"}}), InvalidArgument);
  EXPECT_THROW(r.check_args("merge_event_data", {{"x", 1}}), InvalidArgument);
  EXPECT_NO_THROW(r.check_args("assign", {{"anything", 1}}));
}

TEST(ActionRegistry, AddsFindsAndReplaces) {
  ActionRegistry r = builtin_actions();
  EXPECT_EQ(r.find("nope"), nullptr);
  int calls = 0;
  r.add("assign", [&](ActionContext&) { ++calls; });
  bj::object context, args;
  Event event;
  Execution execution;
  std::vector<Emit> emits;
  ActionContext ctx{context, event, args, execution, emits, ""};
  (*r.find("assign"))(ctx);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace harel::runtime
