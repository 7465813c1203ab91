#include "harel/runtime/definition.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "harel/errors.h"
#include "runtime/harness.h"

namespace harel::runtime {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kChart = R"({
  "id": "chart",
  "initial": "Idle",
  "states": {
    "Idle": {"on": {"Go": [{"target": "Work", "guard": {"fast": true}}, "Fork"]}},
    "Work": {
      "initial": "Step1",
      "on_enter": ["merge_event_data"],
      "states": {
        "Step1": {"timeout": {"after": 2.5, "target": "Step2"}},
        "Step2": {"always": {"target": "Done", "actions": [{"action": "assign", "args": {"x": 1}}]}}
      }
    },
    "Fork": {
      "regions": {"A": {"initial": "A1", "states": {"A1": {"final": "success"}}}},
      "on_done": "Done"
    },
    "Done": {"final": "success"}
  }
})";

TEST(Definition, ParsesStatesPathsAndTransitions) {
  auto def = parse_definition(kChart, builtin_actions());
  EXPECT_EQ(def->id(), "chart");
  const State& root = def->state(0);
  EXPECT_EQ(root.path, "");
  EXPECT_EQ(def->state(root.initial).name, "Idle");

  const State& idle = def->state(def->find_name("Idle"));
  const auto* go = idle.transitions_on("Go");
  ASSERT_NE(go, nullptr);
  ASSERT_EQ(go->size(), 2u);
  EXPECT_EQ((*go)[0].guard, (boost::json::object{{"fast", true}}));
  EXPECT_EQ(def->state((*go)[0].to).name, "Work");
  EXPECT_EQ(def->state((*go)[1].to).name, "Fork");
  EXPECT_EQ(idle.transitions_on("Other"), nullptr);

  const State& step1 = def->state(def->find_path("Work.Step1"));
  EXPECT_EQ(step1.kind, StateKind::Atomic);
  ASSERT_TRUE(step1.timeout);
  EXPECT_EQ(step1.timeout->after, 2.5);
  EXPECT_EQ(def->state(step1.timeout->transition.to).path, "Work.Step2");
  const State& step2 = def->state(def->find_name("Step2"));
  ASSERT_EQ(step2.always.size(), 1u);
  EXPECT_EQ(step2.always[0].actions, (std::vector<ActionCall>{{"assign", {{"x", 1}}}}));
  EXPECT_EQ(def->state(def->find_name("Work")).kind, StateKind::Compound);
  EXPECT_EQ(def->state(def->find_name("Work")).on_enter, (std::vector<ActionCall>{{"merge_event_data", {}}}));

  const std::size_t fork = def->find_name("Fork");
  EXPECT_EQ(def->state(fork).kind, StateKind::Parallel);
  const std::size_t region = def->find_path("Fork.A");
  EXPECT_EQ(def->state(region).kind, StateKind::Region);
  EXPECT_EQ(def->state(region).scope, region);
  EXPECT_EQ(def->find_name("A"), kNoState);  // regions are not targets
  const State& a1 = def->state(def->find_path("Fork.A.A1"));
  EXPECT_EQ(a1.scope, region);
  EXPECT_EQ(a1.outcome, "success");
  EXPECT_EQ(def->state(def->find_name("Done")).scope, 0u);
  EXPECT_EQ(def->find_path("Nope"), kNoState);
}

// The message of the InvalidArgument parsing `json` raises.
std::string error_of(std::string_view json) {
  try {
    parse_definition(json, testing::test_actions());
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << json;
  return "";
}

struct BadDefinition {
  const char* name;
  const char* json;
  const char* message;
  friend void PrintTo(const BadDefinition& b, std::ostream* os) { *os << b.name; }
};

class Validation : public ::testing::TestWithParam<BadDefinition> {};

TEST_P(Validation, RejectsWithAClearMessage) {
  EXPECT_THAT(error_of(GetParam().json), HasSubstr(GetParam().message));
}

// Each case is a small valid chart with one thing wrong.
INSTANTIATE_TEST_SUITE_P(
    Errors, Validation,
    ::testing::Values(
        BadDefinition{"NotJson", R"({"id": )", "definition: invalid JSON"},
        BadDefinition{"NotAnObject", R"([1])", "definition: the document must be a JSON object"},
        BadDefinition{"MissingId", R"({"initial": "A", "states": {"A": {}}})", "\"id\" must be a non-empty string"},
        BadDefinition{"UnknownTopLevelKey", R"({"id": "d", "intial": "A", "states": {"A": {}}})",
                      "definition 'd': unknown key \"intial\""},
        BadDefinition{"MissingInitial", R"({"id": "d", "states": {"A": {}}})", "definition 'd': missing \"initial\""},
        BadDefinition{"NoStates", R"({"id": "d", "initial": "A", "states": {}})", "\"states\" must be a non-empty object"},
        BadDefinition{"InitialNotAState", R"({"id": "d", "initial": "B", "states": {"A": {}}})",
                      "definition 'd': initial 'B' is not one of its states"},
        BadDefinition{"CompoundWithoutInitial",
                      R"({"id": "d", "initial": "A", "states": {"A": {"states": {"A1": {}}}}})",
                      "definition 'd', state 'A': missing \"initial\""},
        BadDefinition{"CompoundInitialNotAChild",
                      R"({"id": "d", "initial": "A", "states": {"A": {"initial": "B", "states": {"A1": {}}},
                          "B": {}}})",
                      "definition 'd', state 'A': initial 'B' is not one of its states"},
        BadDefinition{"InitialWithoutStates", R"({"id": "d", "initial": "A", "states": {"A": {"initial": "X"}}})",
                      "state 'A': \"initial\" not allowed: \"initial\" needs \"states\""},
        BadDefinition{"DuplicateName",
                      R"({"id": "d", "initial": "A", "states": {"A": {"initial": "B", "states": {"B": {}}},
                          "B": {}}})",
                      "definition 'd': duplicate state name 'B'"},
        BadDefinition{"DottedName", R"({"id": "d", "initial": "A.B", "states": {"A.B": {}}})",
                      "name 'A.B' must be non-empty and contain no '.'"},
        BadDefinition{"UnknownTarget", R"({"id": "d", "initial": "A", "states": {"A": {"on": {"Go": "Nowhere"}}}})",
                      "definition 'd', state 'A': on 'Go': unknown target 'Nowhere'"},
        BadDefinition{"UnknownAlwaysTarget", R"({"id": "d", "initial": "A", "states": {"A": {"always": "Z"}}})",
                      "state 'A': always: unknown target 'Z'"},
        BadDefinition{"UnknownAction", R"({"id": "d", "initial": "A", "states": {"A": {"on_enter": ["fly"]}}})",
                      "definition 'd', state 'A': on_enter: unknown action 'fly'"},
        BadDefinition{"UnknownTransitionAction",
                      R"({"id": "d", "initial": "A", "states": {"A": {"on": {"Go": {"target": "A",
                          "actions": [{"action": "fly"}]}}}}})",
                      "state 'A': on 'Go': unknown action 'fly'"},
        BadDefinition{"BadActionArgs",
                      R"({"id": "d", "initial": "A", "states": {"A": {"on_exit": [{"action": "increment"}]}}})",
                      "state 'A': on_exit: action 'increment': \"field\" must be a non-empty string"},
        BadDefinition{"BadActionShape", R"({"id": "d", "initial": "A", "states": {"A": {"on_enter": [3]}}})",
                      "on_enter: an action is \"name\" or"},
        BadDefinition{"Unreachable",
                      R"({"id": "d", "initial": "A", "states": {"A": {"on": {"Go": "B"}}, "B": {}, "C": {}}})",
                      "definition 'd', state 'C': unreachable"},
        BadDefinition{"UnreachableNonInitialChild",
                      R"({"id": "d", "initial": "A", "states": {"A": {"initial": "A1", "states": {"A1": {},
                          "A2": {}}}}})",
                      "state 'A2': unreachable"},
        BadDefinition{"ParallelWithoutRegions",
                      R"({"id": "d", "initial": "P", "states": {"P": {"regions": {}, "on_done": "P"}}})",
                      "state 'P': \"regions\" must be a non-empty object"},
        BadDefinition{"ParallelWithoutOnDone",
                      R"({"id": "d", "initial": "P", "states": {"P": {"regions": {"R": {"initial": "F",
                          "states": {"F": {"final": "success"}}}}}}})",
                      "state 'P': a parallel state needs \"on_done\""},
        BadDefinition{"RegionWithoutInitial",
                      R"({"id": "d", "initial": "P", "states": {"P": {"regions": {"R": {
                          "states": {"F": {"final": "success"}}}}, "on_done": "P"}}})",
                      "definition 'd', region 'P.R': missing \"initial\""},
        BadDefinition{"RegionInitialNotAChild",
                      R"({"id": "d", "initial": "P", "states": {"P": {"regions": {"R": {"initial": "G",
                          "states": {"F": {"final": "success"}}}}, "on_done": "P"}}})",
                      "region 'P.R': initial 'G' is not one of its states"},
        BadDefinition{"RegionWithoutFinal",
                      R"({"id": "d", "initial": "P", "states": {"P": {"regions": {"R": {"initial": "F",
                          "states": {"F": {}}}}, "on_done": "P"}}})",
                      "region 'P.R': no final state"},
        BadDefinition{"AcrossRegionBoundary",
                      R"({"id": "d", "initial": "P", "states": {"P": {"regions": {"R": {"initial": "F",
                          "states": {"F": {"on": {"Go": "Out"}}, "G": {"final": "success"}}}}, "on_done": "Out"},
                          "Out": {}}})",
                      "state 'F': on 'Go': target 'Out' is across a region boundary"},
        BadDefinition{"IntoRegion",
                      R"({"id": "d", "initial": "A", "states": {"A": {"on": {"Go": "F"}}, "P": {"regions": {"R": {
                          "initial": "F", "states": {"F": {"final": "success"}}}}, "on_done": "A"}}})",
                      "state 'A': on 'Go': target 'F' is across a region boundary"},
        BadDefinition{"NestedFinal",
                      R"({"id": "d", "initial": "A", "states": {"A": {"initial": "F", "states": {
                          "F": {"final": "success"}}}}})",
                      "state 'F': a final state must be top-level or directly inside a region"},
        BadDefinition{"FinalWithTransitions",
                      R"({"id": "d", "initial": "F", "states": {"F": {"final": "success", "on": {"Go": "F"}}}})",
                      "state 'F': \"on\" not allowed: a final state is never left"},
        BadDefinition{"OnDoneOnAtomic", R"({"id": "d", "initial": "A", "states": {"A": {"on_done": "A"}}})",
                      "state 'A': \"on_done\" not allowed: only parallel states join"},
        BadDefinition{"TimeoutNotPositive",
                      R"({"id": "d", "initial": "A", "states": {"A": {"timeout": {"after": 0, "target": "A"}}}})",
                      "state 'A': \"timeout\" must be {\"after\": <seconds > 0>"},
        BadDefinition{"TimeoutNotANumber",
                      R"({"id": "d", "initial": "A", "states": {"A": {"timeout": {"after": "5s", "target": "A"}}}})",
                      "state 'A': \"timeout\" must be"},
        BadDefinition{"TimeoutWithoutTarget",
                      R"({"id": "d", "initial": "A", "states": {"A": {"timeout": {"after": 1}}}})",
                      "state 'A': \"timeout\" must be"},
        BadDefinition{"TimeoutUnknownTarget",
                      R"({"id": "d", "initial": "A", "states": {"A": {"timeout": {"after": 1, "target": "Q"}}}})",
                      "state 'A': timeout: unknown target 'Q'"},
        BadDefinition{"ReservedEventKind",
                      R"({"id": "d", "initial": "A", "states": {"A": {"on": {"Timeout": "A"}}}})",
                      "state 'A': event kind 'Timeout' is the engine's own"},
        BadDefinition{"EmptyTransitionList", R"({"id": "d", "initial": "A", "states": {"A": {"on": {"Go": []}}}})",
                      "state 'A': on 'Go': empty transition list"},
        BadDefinition{"TransitionWithoutTarget",
                      R"({"id": "d", "initial": "A", "states": {"A": {"on": {"Go": {"guard": {}}}}}})",
                      "state 'A': on 'Go': transition without \"target\""},
        BadDefinition{"GuardNotAnObject",
                      R"({"id": "d", "initial": "A", "states": {"A": {"on": {"Go": {"target": "A", "guard": 1}}}}})",
                      "\"guard\" must be an object"},
        BadDefinition{"UnknownStateKey", R"({"id": "d", "initial": "A", "states": {"A": {"on_entry": []}}})",
                      "state 'A': unknown key \"on_entry\""},
        BadDefinition{"StateNotAnObject", R"({"id": "d", "initial": "A", "states": {"A": 1}})",
                      "state 'A' must be an object"}),
    [](const ::testing::TestParamInfo<BadDefinition>& p) { return std::string(p.param.name); });

TEST(Definition, LoadsAFileAndNamesItInErrors) {
  EXPECT_THAT(
      [] {
        try {
          load_definition_file("/nonexistent/chart.json", builtin_actions());
        } catch (const InvalidArgument& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      HasSubstr("cannot read definition file '/nonexistent/chart.json'"));
}

}  // namespace
}  // namespace harel::runtime
