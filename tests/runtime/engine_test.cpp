#include "harel/runtime/engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harel/errors.h"
#include "harel/model/codec.h"
#include "runtime/harness.h"

namespace harel::runtime {
namespace {

namespace bj = boost::json;
using testing::log_of;
using testing::Machine;
using testing::make_event;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ------------------------------------------------------------------ hierarchy

constexpr std::string_view kHierarchy = R"({
  "id": "h",
  "initial": "A",
  "states": {
    "A": {
      "initial": "A1",
      "on_enter": [{"action": "log", "args": {"s": "enter A"}}],
      "on_exit": [{"action": "log", "args": {"s": "exit A"}}],
      "on": {"Leave": "B", "Go": "B"},
      "states": {
        "A1": {
          "initial": "A11",
          "on_enter": [{"action": "log", "args": {"s": "enter A1"}}],
          "on_exit": [{"action": "log", "args": {"s": "exit A1"}}],
          "states": {
            "A11": {
              "on_enter": [{"action": "log", "args": {"s": "enter A11"}}],
              "on_exit": [{"action": "log", "args": {"s": "exit A11"}}],
              "on": {
                "Go": {"target": "B2", "actions": [{"action": "log", "args": {"s": "act"}}]},
                "Self": "A11",
                "Up": "A"
              }
            }
          }
        }
      }
    },
    "B": {
      "initial": "B1",
      "on_enter": [{"action": "log", "args": {"s": "enter B"}}],
      "states": {
        "B1": {"on_enter": [{"action": "log", "args": {"s": "enter B1"}}]},
        "B2": {"on_enter": [{"action": "log", "args": {"s": "enter B2"}}], "on": {"Back": "B"}}
      }
    }
  }
})";

// Starts a kHierarchy execution and clears its log.
Execution started(Machine& m) {
  Step s = m.start();
  EXPECT_THAT(log_of(s.execution), ElementsAre("enter A", "enter A1", "enter A11"));
  s.execution.context.erase("log");
  return s.execution;
}

TEST(Hierarchy, StartEntersInitialDescendantsOutermostFirst) {
  Machine m(kHierarchy);
  const Step s = m.start();
  EXPECT_EQ(s.execution.status, Status::Running);
  EXPECT_EQ(s.execution.active_path, "A.A1.A11");
  EXPECT_TRUE(s.handled);
}

TEST(Hierarchy, ExitsInnermostFirstRunsActionsThenEntersDownToTarget) {
  Machine m(kHierarchy);
  const Step s = m.send(started(m), "Go");
  EXPECT_THAT(log_of(s.execution), ElementsAre("exit A11", "exit A1", "exit A", "act", "enter B", "enter B2"));
  EXPECT_EQ(s.execution.active_path, "B.B2");
  OrderedMap<std::string> history;
  history["A.A1"] = "A.A1.A11";
  history["A"] = "A.A1.A11";
  EXPECT_EQ(s.execution.history, history);

  const Step back = m.send(s.execution, "Back");  // to an ancestor: it is left and re-entered
  EXPECT_THAT(log_of(back.execution), ElementsAre("exit A11", "exit A1", "exit A", "act", "enter B", "enter B2",
                                                  "enter B", "enter B1"));
  EXPECT_EQ(back.execution.active_path, "B.B1");
  EXPECT_EQ(back.execution.history.find("B")->second, "B.B2");
}

TEST(Hierarchy, SelfTransitionLeavesAndReentersOnlyThatState) {
  Machine m(kHierarchy);
  const Step s = m.send(started(m), "Self");
  EXPECT_THAT(log_of(s.execution), ElementsAre("exit A11", "enter A11"));
  EXPECT_EQ(s.execution.active_path, "A.A1.A11");
}

TEST(Hierarchy, TransitionToAnAncestorReentersItAndItsInitials) {
  Machine m(kHierarchy);
  const Step s = m.send(started(m), "Up");
  EXPECT_THAT(log_of(s.execution),
              ElementsAre("exit A11", "exit A1", "exit A", "enter A", "enter A1", "enter A11"));
}

TEST(Hierarchy, AncestorTransitionsApplyToTheLeafAndInnerOnesWin) {
  Machine m(kHierarchy);
  EXPECT_EQ(m.send(started(m), "Leave").execution.active_path, "B.B1");  // defined on A only
  EXPECT_EQ(m.send(started(m), "Go").execution.active_path, "B.B2");     // A11's Go beats A's
}

// ------------------------------------------------------------------ guards

constexpr std::string_view kGuards = R"({
  "id": "g",
  "initial": "S",
  "states": {
    "S": {"on": {"Pay": [{"target": "Card", "guard": {"method": "card", "amount": 10}},
                         {"target": "Cash", "guard": {"method": "cash"}}]}},
    "Card": {},
    "Cash": {}
  }
})";

TEST(Guards, FirstTransitionWhoseGuardMatchesEventDataWins) {
  Machine m(kGuards);
  const Execution s = m.start().execution;
  EXPECT_EQ(m.send(s, "Pay", {{"method", "card"}, {"amount", 10}}).execution.active_path, "Card");
  EXPECT_EQ(m.send(s, "Pay", {{"method", "card"}, {"amount", 10.0}}).execution.active_path, "Card");
  EXPECT_EQ(m.send(s, "Pay", {{"method", "cash"}, {"extra", 1}}).execution.active_path, "Cash");
}

TEST(Guards, NoMatchingGuardLeavesTheEventUnhandled) {
  Machine m(kGuards);
  const Execution s = m.start().execution;
  for (const bj::object& data : {bj::object{{"method", "bitcoin"}}, bj::object{{"method", "card"}},
                                 bj::object{{"method", "card"}, {"amount", 11}}, bj::object{}}) {
    const Step step = m.send(s, "Pay", data);
    EXPECT_FALSE(step.handled);
    Execution expected = s;
    expected.processed_events += 1;
    EXPECT_EQ(step.execution, expected);
    EXPECT_TRUE(step.effects.emits.empty());
    EXPECT_EQ(step.effects.trace->at("handled"), false);
  }
  EXPECT_FALSE(m.send(s, "Unknown").handled);
}

// ------------------------------------------------------------------ automatic transitions

constexpr std::string_view kAutomatic = R"({
  "id": "auto",
  "initial": "A",
  "states": {
    "A": {"on": {"Go": {"target": "B", "actions": ["merge_event_data"]}}},
    "B": {"always": [{"target": "C", "guard": {"ok": true}}, {"target": "D", "guard": {"ok": false}}]},
    "C": {"always": {"target": "E", "actions": [{"action": "increment", "args": {"field": "hops"}}]}},
    "D": {},
    "E": {"final": "success"}
  }
})";

TEST(Automatic, ChainsRightAfterEnteringWithGuardsOnTheContext) {
  Machine m(kAutomatic);
  const Execution s = m.start().execution;
  const Step ok = m.send(s, "Go", {{"ok", true}});
  EXPECT_EQ(ok.execution.active_path, "E");
  EXPECT_EQ(ok.execution.status, Status::Done);
  EXPECT_EQ(ok.execution.context.at("hops"), 1);
  EXPECT_EQ(ok.effects.trace->at("from_path"), "A");
  EXPECT_EQ(ok.effects.trace->at("to_path"), "E");
  EXPECT_EQ(m.send(s, "Go", {{"ok", false}}).execution.active_path, "D");
  EXPECT_EQ(m.send(s, "Go", {{"ok", "maybe"}}).execution.active_path, "B");  // waits: none enabled
}

TEST(Automatic, RunOnStartToo) {
  Machine m(R"({"id": "a", "initial": "A", "states": {"A": {"always": "B"}, "B": {"final": "success"}}})");
  const Step s = m.start();
  EXPECT_EQ(s.execution.active_path, "B");
  EXPECT_EQ(s.execution.status, Status::Done);
}

TEST(Automatic, ARunawayLoopFailsTheExecutionInsteadOfHanging) {
  Machine m(R"({"id": "loop", "initial": "P", "states": {"P": {"always": "Q", "timeout": {"after": 1, "target": "Q"}},
                                                          "Q": {"always": "P"}}})");
  const Step s = m.start();
  EXPECT_EQ(s.execution.status, Status::Failed);
  EXPECT_EQ(s.execution.outcome, "failed");
  EXPECT_THAT(s.execution.error.value_or(""), HasSubstr("automatic transitions did not settle after 100 steps"));
  EXPECT_THAT(std::string(s.effects.trace->at("error").as_string()), HasSubstr("did not settle"));
  EXPECT_TRUE(s.effects.timers.empty());  // the failed step's effects are dropped
  EXPECT_EQ(s.execution.active_path, std::nullopt);
}

// ------------------------------------------------------------------ timeouts

constexpr std::string_view kTimeouts = R"({
  "id": "t",
  "initial": "Wait",
  "states": {
    "Wait": {"timeout": {"after": 5, "target": "Late"}, "on": {"Answer": "Answered", "Again": "Wait"}},
    "Answered": {
      "initial": "Checking",
      "timeout": {"after": 1.5, "target": "Late"},
      "states": {"Checking": {"on": {"Retry": "Wait"}}}
    },
    "Late": {"final": "failed"}
  }
})";

TEST(Timeouts, ArmedOnEnterCancelledOnExit) {
  Machine m(kTimeouts);
  const Step s = m.start("e1", {}, 100);
  EXPECT_THAT(s.effects.timers, ElementsAre(TimerOp::schedule("Wait", 105)));
  const Step answered = m.send(s.execution, "Answer", {}, 101);
  EXPECT_THAT(answered.effects.timers, ElementsAre(TimerOp::cancel("Wait"), TimerOp::schedule("Answered", 102.5)));
  const Step retry = m.send(answered.execution, "Retry", {}, 102);
  EXPECT_THAT(retry.effects.timers, ElementsAre(TimerOp::cancel("Answered"), TimerOp::schedule("Wait", 107)));
}

TEST(Timeouts, ReenteringReplacesTheTimerWithOneOp) {
  Machine m(kTimeouts);
  const Step again = m.send(m.start("e1", {}, 100).execution, "Again", {}, 103);
  EXPECT_THAT(again.effects.timers, ElementsAre(TimerOp::schedule("Wait", 108)));
}

TEST(Timeouts, FiresTheTransitionOfAnActiveState) {
  Machine m(kTimeouts);
  const Step fired = m.send(m.start().execution, "Timeout", {{"path", "Wait"}});
  EXPECT_TRUE(fired.handled);
  EXPECT_EQ(fired.execution.active_path, "Late");
  EXPECT_EQ(fired.execution.status, Status::Failed);
  EXPECT_EQ(fired.execution.outcome, "failed");
  EXPECT_THAT(fired.effects.timers, ElementsAre(TimerOp::cancel("Wait")));
}

TEST(Timeouts, FiresForAnActiveAncestorOfTheLeaf) {
  Machine m(kTimeouts);
  const Step answered = m.send(m.start().execution, "Answer");
  EXPECT_EQ(answered.execution.active_path, "Answered.Checking");
  EXPECT_EQ(m.send(answered.execution, "Timeout", {{"path", "Answered"}}).execution.active_path, "Late");
}

TEST(Timeouts, AStaleTimerIsUnhandled) {
  Machine m(kTimeouts);
  const Step answered = m.send(m.start().execution, "Answer");
  for (const bj::object& data : {bj::object{{"path", "Wait"}}, bj::object{{"path", "Answered.Checking"}},
                                 bj::object{{"path", "Nope"}}, bj::object{}}) {
    const Step stale = m.send(answered.execution, "Timeout", data);
    EXPECT_FALSE(stale.handled);
    EXPECT_EQ(stale.execution.active_path, "Answered.Checking");
    EXPECT_TRUE(stale.effects.timers.empty());
  }
}

// ------------------------------------------------------------------ fork / join

constexpr std::string_view kFork = R"({
  "id": "f",
  "initial": "Idle",
  "states": {
    "Idle": {"on": {"Go": "Work"}},
    "Work": {
      "on_enter": [{"action": "assign", "args": {"shared": 1}}],
      "on": {"Abort": "Idle"},
      "regions": {
        "A": {"initial": "A1", "states": {
          "A1": {"on": {"Finish": "A2", "Fail": "A3"}, "timeout": {"after": 9, "target": "A3"}},
          "A2": {"final": "success"},
          "A3": {"final": "failed"}}},
        "B": {"initial": "B1", "states": {
          "B1": {"on_enter": [{"action": "assign", "args": {"b": true}}], "always": "B2"},
          "B2": {"final": "success"}}}
      },
      "on_done": "Done",
      "on_failed": "Broken"
    },
    "Done": {"final": "success"},
    "Broken": {"final": "failed"}
  }
})";

// The child execution the runner creates from a SpawnRequest.
Execution child_of(const Execution& parent, const SpawnRequest& spawn) {
  Execution c = testing::new_execution(spawn.child_id, parent.definition_id, spawn.context);
  c.root_path = spawn.root_path;
  c.parent_id = parent.id;
  c.child_id = spawn.child_id;
  return c;
}

Event finished(const std::string& child, const std::string& outcome, const std::string& id = "fin") {
  return make_event(id, "Finished", {{"child_id", child}, {"outcome", outcome}});
}

TEST(Fork, EnteringAParallelStateSpawnsOneChildPerRegion) {
  Machine m(kFork);
  const Step go = m.send(m.start("p", {{"k", "v"}}).execution, "Go");
  EXPECT_EQ(go.execution.active_path, "Work");
  const bj::object ctx{{"k", "v"}, {"shared", 1}};
  ASSERT_EQ(go.effects.spawns.size(), 2u);
  EXPECT_EQ(go.effects.spawns[0], (SpawnRequest{"p.Work.A.0", "Work.A", ctx}));
  EXPECT_EQ(go.effects.spawns[1], (SpawnRequest{"p.Work.B.0", "Work.B", ctx}));
  ASSERT_EQ(go.execution.children.size(), 2u);
  const ChildState& a = go.execution.children.find("p.Work.A.0")->second;
  EXPECT_EQ(a.root_path, "Work.A");
  EXPECT_EQ(a.key, "A");
  EXPECT_FALSE(a.finished);
  EXPECT_EQ(go.execution.invoke_seq.find("Work")->second, 1);
}

TEST(Fork, ChildStartsInItsRegionAndReportsFinishedToItsParent) {
  Machine m(kFork);
  const Step go = m.send(m.start("p").execution, "Go");
  const Step a = m.engine().start(child_of(go.execution, go.effects.spawns[0]), 50);
  EXPECT_EQ(a.execution.status, Status::Running);
  EXPECT_EQ(a.execution.active_path, "Work.A.A1");
  EXPECT_THAT(a.effects.timers, ElementsAre(TimerOp::schedule("Work.A.A1", 59)));
  EXPECT_THAT(a.effects.spawns, IsEmpty());
  EXPECT_THAT(a.effects.emits, IsEmpty());
  EXPECT_FALSE(a.execution.context.contains("b"));  // the other region's actions stay there

  const Step done = m.send(a.execution, "Finish");
  EXPECT_EQ(done.execution.status, Status::Done);
  EXPECT_EQ(done.execution.outcome, "success");
  EXPECT_EQ(done.execution.active_path, "Work.A.A2");
  ASSERT_EQ(done.effects.emits.size(), 1u);
  EXPECT_EQ(done.effects.emits[0].target_id, "p");
  EXPECT_EQ(done.effects.emits[0].event,
            make_event("p.Work.A.0:1:0", "Finished", {{"child_id", "p.Work.A.0"}, {"outcome", "success"}}));

  // A region finishing by itself reports from start().
  const Step b = m.engine().start(child_of(go.execution, go.effects.spawns[1]), 0);
  EXPECT_EQ(b.execution.status, Status::Done);
  EXPECT_EQ(b.execution.context.at("b"), true);
  ASSERT_EQ(b.effects.emits.size(), 1u);
  EXPECT_EQ(b.effects.emits[0].event.data.at("outcome"), "success");
}

TEST(Fork, JoinsOnTheLastFinishedAndIgnoresRepeats) {
  Machine m(kFork);
  const Execution working = m.send(m.start("p").execution, "Go").execution;
  const Step first = m.engine().handle(working, finished("p.Work.B.0", "success"), 0);
  EXPECT_TRUE(first.handled);
  EXPECT_EQ(first.execution.active_path, "Work");
  EXPECT_TRUE(first.execution.children.find("p.Work.B.0")->second.finished);
  EXPECT_EQ(first.execution.children.find("p.Work.B.0")->second.outcome, "success");

  EXPECT_FALSE(m.engine().handle(first.execution, finished("p.Work.B.0", "success"), 0).handled);
  EXPECT_FALSE(m.engine().handle(first.execution, finished("p.Work.C.0", "success"), 0).handled);
  EXPECT_FALSE(m.engine().handle(first.execution, make_event("x", "Finished"), 0).handled);

  const Step joined = m.engine().handle(first.execution, finished("p.Work.A.0", "success"), 0);
  EXPECT_EQ(joined.execution.active_path, "Done");
  EXPECT_EQ(joined.execution.status, Status::Done);
  EXPECT_EQ(joined.execution.outcome, "success");
}

TEST(Fork, AFailedChildTakesOnFailed) {
  Machine m(kFork);
  const Execution working = m.send(m.start("p").execution, "Go").execution;
  const Step a = m.send(m.engine().start(child_of(working, SpawnRequest{"p.Work.A.0", "Work.A", {}}), 0).execution,
                        "Fail");
  EXPECT_EQ(a.execution.status, Status::Failed);
  const Event report = a.effects.emits.at(0).event;
  EXPECT_EQ(report.data.at("outcome"), "failed");
  const Step one = m.engine().handle(working, report, 0);
  const Step both = m.engine().handle(one.execution, finished("p.Work.B.0", "success"), 0);
  EXPECT_EQ(both.execution.active_path, "Broken");
  EXPECT_EQ(both.execution.status, Status::Failed);
}

TEST(Fork, WithoutOnFailedAFailureStillJoinsToOnDone) {
  Machine m(R"({"id": "j", "initial": "P", "states": {
    "P": {"regions": {"R": {"initial": "X", "states": {"X": {"final": "failed"}}}}, "on_done": "End"},
    "End": {"final": "success"}}})");
  const Step s = m.start("p");
  EXPECT_EQ(m.engine().handle(s.execution, finished("p.P.R.0", "failed"), 0).execution.active_path, "End");
}

TEST(Fork, ReenteringSpawnsFreshChildrenAndOldOnesNoLongerCount) {
  Machine m(kFork);
  const Execution working = m.send(m.start("p").execution, "Go").execution;
  const Execution idle = m.send(working, "Abort").execution;
  const Step again = m.send(idle, "Go");
  EXPECT_EQ(again.effects.spawns.at(0).child_id, "p.Work.A.1");
  EXPECT_EQ(again.execution.invoke_seq.find("Work")->second, 2);
  EXPECT_FALSE(m.engine().handle(again.execution, finished("p.Work.A.0", "success"), 0).handled);
  EXPECT_TRUE(m.engine().handle(again.execution, finished("p.Work.A.1", "success"), 0).handled);
}

// ------------------------------------------------------------------ outcomes

constexpr std::string_view kOutcomes = R"({
  "id": "o",
  "initial": "S",
  "states": {
    "S": {"on": {"A": "Ok", "B": "Bad", "C": "Stop", "D": "Custom"}},
    "Ok": {"final": "success"},
    "Bad": {"final": "failed"},
    "Stop": {"final": "cancelled"},
    "Custom": {"final": "shipped"}
  }
})";

TEST(Outcomes, FinalStatesSetStatusAndOutcome) {
  Machine m(kOutcomes);
  const Execution s = m.start().execution;
  const std::vector<std::tuple<std::string, Status, std::string>> cases{{"A", Status::Done, "success"},
                                                                        {"B", Status::Failed, "failed"},
                                                                        {"C", Status::Cancelled, "cancelled"},
                                                                        {"D", Status::Done, "shipped"}};
  for (const auto& [kind, status, outcome] : cases) {
    const Step step = m.send(s, kind);
    EXPECT_EQ(step.execution.status, status) << kind;
    EXPECT_EQ(step.execution.outcome, outcome) << kind;
  }
}

TEST(Outcomes, ATerminalExecutionHandlesNothingMore) {
  Machine m(kOutcomes);
  const Execution done = m.send(m.start().execution, "A").execution;
  const Step after = m.send(done, "B");
  EXPECT_FALSE(after.handled);
  EXPECT_EQ(after.execution.status, Status::Done);
  EXPECT_EQ(after.execution.processed_events, done.processed_events + 1);
}

// ------------------------------------------------------------------ steps, ids, failures

TEST(Steps, TraceStepAndCounters) {
  Machine m(kGuards);
  const Step start = m.start("e1");
  EXPECT_EQ(*start.effects.trace, (bj::object{{"event_id", "e1:start"}, {"event_kind", "Start"},
                                              {"from_path", nullptr}, {"to_path", "S"},
                                              {"status", "RUNNING"}, {"handled", true}}));
  EXPECT_EQ(start.execution.processed_events, 0);
  EXPECT_FALSE(start.effects.processed_event_id);
  const Step pay = m.engine().handle(start.execution, make_event("ev9", "Pay", {{"method", "cash"}}), 0);
  EXPECT_EQ(*pay.effects.trace, (bj::object{{"event_id", "ev9"}, {"event_kind", "Pay"}, {"from_path", "S"},
                                            {"to_path", "Cash"}, {"status", "RUNNING"}, {"handled", true}}));
  EXPECT_EQ(pay.execution.processed_events, 1);
  EXPECT_EQ(pay.execution.version, start.execution.version);  // the store bumps it
  EXPECT_FALSE(pay.effects.processed_event_id);
}

TEST(Steps, EmitIdsFollowTheNextVersion) {
  Machine m(R"({"id": "em", "initial": "S", "states": {"S": {"on": {"Go": {"target": "S", "actions": [
      {"action": "emit", "args": {"target": "a", "kind": "One"}},
      {"action": "emit", "args": {"target": null, "kind": "Two", "data": {"x": 1}}}]}}}}})");
  Execution s = m.start("e1").execution;
  s.version = 4;
  const Step go = m.send(s, "Go");
  ASSERT_EQ(go.effects.emits.size(), 2u);
  EXPECT_EQ(go.effects.emits[0].event.id, "e1:5:0");
  EXPECT_EQ(go.effects.emits[1].event.id, "e1:5:1");
  EXPECT_EQ(go.effects.emits[1].target_id, std::nullopt);
  EXPECT_EQ(go.effects.emits[1].event.data, (bj::object{{"x", 1}}));
}

TEST(Steps, SameInputsGiveIdenticalOutputs) {
  auto run = [] {
    Machine m(kFork);
    std::vector<Step> steps;
    steps.push_back(m.start("p", {{"n", 1}}, 10));
    steps.push_back(m.send(steps.back().execution, "Go", {{"x", 2}}, 11));
    steps.push_back(m.engine().start(child_of(steps.back().execution, steps.back().effects.spawns[0]), 12));
    steps.push_back(m.send(steps.back().execution, "Finish", {}, 13));
    return steps;
  };
  const std::vector<Step> a = run();
  const std::vector<Step> b = run();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(to_json(a[i].execution), to_json(b[i].execution));
    EXPECT_EQ(a[i].effects.emits, b[i].effects.emits);
    EXPECT_EQ(a[i].effects.spawns, b[i].effects.spawns);
    EXPECT_EQ(a[i].effects.timers, b[i].effects.timers);
    EXPECT_EQ(a[i].effects.trace, b[i].effects.trace);
    EXPECT_EQ(a[i].handled, b[i].handled);
  }
}

TEST(Steps, AThrowingActionFailsTheExecutionAndDropsTheStepsEffects) {
  Machine m(R"({"id": "b", "initial": "S", "states": {
    "S": {"timeout": {"after": 5, "target": "T"}, "on": {"Go": "T"}},
    "T": {"on_enter": [{"action": "emit", "args": {"target": "x", "kind": "K"}}, "boom"]}}})");
  const Execution s = m.start().execution;
  const Step go = m.send(s, "Go");
  EXPECT_TRUE(go.handled);
  EXPECT_EQ(go.execution.status, Status::Failed);
  EXPECT_EQ(go.execution.outcome, "failed");
  EXPECT_EQ(go.execution.error, "action 'boom' (on_enter of 'T') failed: boom");
  EXPECT_EQ(go.execution.active_path, "S");  // as it was
  EXPECT_EQ(go.execution.context, s.context);
  EXPECT_THAT(go.effects.emits, IsEmpty());
  EXPECT_THAT(go.effects.timers, ElementsAre(TimerOp::cancel("S")));
  EXPECT_EQ(go.effects.trace->at("status"), "FAILED");
}

TEST(Steps, AFailingChildStillReportsToItsParent) {
  Machine m(R"({"id": "c", "initial": "P", "states": {
    "P": {"regions": {"R": {"initial": "X", "states": {"X": {"on": {"Go": "Y"}}, "Y": {"final": "success",
          "on_enter": ["boom"]}}}}, "on_done": "End"},
    "End": {"final": "success"}}})");
  const Step p = m.start("p");
  const Step child = m.engine().start(child_of(p.execution, p.effects.spawns.at(0)), 0);
  const Step go = m.send(child.execution, "Go");
  EXPECT_EQ(go.execution.status, Status::Failed);
  ASSERT_EQ(go.effects.emits.size(), 1u);
  EXPECT_EQ(go.effects.emits[0].event, make_event("p.P.R.0:1:0", "Finished",
                                                  {{"child_id", "p.P.R.0"}, {"outcome", "failed"}}));
}

TEST(Steps, RejectsExecutionsThatDoNotFitTheDefinition) {
  Machine m(kGuards);
  EXPECT_THROW(m.engine().start(testing::new_execution("e", "other"), 0), InvalidArgument);
  Execution running = m.start().execution;
  EXPECT_THROW(m.engine().start(running, 0), InvalidArgument);  // not PENDING
  running.active_path = "Nope";
  EXPECT_THROW(m.send(running, "Pay"), InvalidArgument);
  Execution child = testing::new_execution("c", "g");
  child.root_path = "S";  // not a region
  child.parent_id = "p";
  EXPECT_THROW(m.engine().start(child, 0), InvalidArgument);
}

TEST(Steps, EngineNeedsEveryActionTheDefinitionNames) {
  auto def = parse_definition(R"({"id": "d", "initial": "A", "states": {"A": {"on_enter": ["log"]}}})",
                              testing::test_actions());
  EXPECT_THROW(Engine(def, std::make_shared<const ActionRegistry>(builtin_actions())), InvalidArgument);
}

}  // namespace
}  // namespace harel::runtime
