#include "harel/runtime/definition.h"

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <sstream>

#include <boost/json/parse.hpp>

#include "harel/errors.h"

namespace harel::runtime {
namespace {

namespace bj = boost::json;

// Turns a definition document into validated States. Builds the tree first
// (recording initial names), then resolves names, then checks the whole
// (finals, regions, reachability), so every error can name its state.
class Compiler {
 public:
  Compiler(const bj::object& doc, const ActionRegistry& actions) : doc_(doc), actions_(actions) {}

  std::shared_ptr<const Definition> run() {
    const bj::value* id = doc_.if_contains("id");
    if (!id || !id->is_string() || id->as_string().empty())
      throw InvalidArgument("definition: \"id\" must be a non-empty string");
    id_ = std::string(id->as_string());
    check_keys(kNoState, doc_, {"id", "initial", "states", "description"});

    State root;
    root.kind = StateKind::Compound;
    states_.push_back(std::move(root));
    initial_names_.emplace_back();
    parse_container(0, doc_);

    for (std::size_t i = 0; i < states_.size(); ++i) resolve(i);
    for (std::size_t i = 1; i < states_.size(); ++i) check_placement(i);
    check_reachable();
    return std::make_shared<const Definition>(id_, std::move(states_), doc_);
  }

 private:
  [[noreturn]] void fail(std::size_t i, const std::string& problem) const {
    std::string where = "definition '" + id_ + "'";
    if (i != kNoState && i != 0) {
      const State& s = states_[i];
      where += s.kind == StateKind::Region ? ", region '" + s.path + "'" : ", state '" + s.name + "'";
    }
    throw InvalidArgument(where + ": " + problem);
  }

  void check_keys(std::size_t i, const bj::object& obj, std::initializer_list<std::string_view> allowed) const {
    for (const auto& kv : obj) {
      bool known = false;
      for (auto a : allowed) known = known || kv.key() == a;
      if (!known) fail(i, "unknown key \"" + std::string(kv.key()) + "\"");
    }
  }

  std::string string_field(std::size_t i, const bj::value& v, std::string_view what) const {
    if (!v.is_string() || v.as_string().empty()) fail(i, "\"" + std::string(what) + "\" must be a non-empty string");
    return std::string(v.as_string());
  }

  std::size_t add(std::size_t parent, std::string_view name, StateKind kind) {
    if (name.empty() || name.find('.') != std::string_view::npos)
      fail(parent, "name '" + std::string(name) + "' must be non-empty and contain no '.'");
    State s;
    s.kind = kind;
    s.name = std::string(name);
    s.parent = parent;
    s.path = states_[parent].path.empty() ? s.name : states_[parent].path + "." + s.name;
    const std::size_t index = states_.size();
    s.scope = kind == StateKind::Region ? index
              : states_[parent].kind == StateKind::Region ? parent
                                                          : states_[parent].scope;
    if (kind != StateKind::Region) {
      if (!names_.emplace(s.name, index).second) fail(kNoState, "duplicate state name '" + s.name + "'");
    }
    states_.push_back(std::move(s));
    initial_names_.emplace_back();
    states_[parent].children.push_back(index);
    return index;
  }

  // "initial" + "states" of the root, a compound state or a region.
  void parse_container(std::size_t i, const bj::object& obj) {
    const bj::value* initial = obj.if_contains("initial");
    if (!initial) fail(i, "missing \"initial\"");
    initial_names_[i] = string_field(i, *initial, "initial");
    const bj::value* states = obj.if_contains("states");
    if (!states || !states->is_object() || states->as_object().empty())
      fail(i, "\"states\" must be a non-empty object");
    for (const auto& kv : states->as_object()) {
      if (!kv.value().is_object()) fail(i, "state '" + std::string(kv.key()) + "' must be an object");
      const bj::object& body = kv.value().as_object();
      const StateKind kind = body.contains("final")     ? StateKind::Final
                             : body.contains("regions") ? StateKind::Parallel
                             : body.contains("states")  ? StateKind::Compound
                                                        : StateKind::Atomic;
      parse_state(add(i, kv.key(), kind), body);
    }
  }

  void parse_state(std::size_t i, const bj::object& obj) {
    check_keys(i, obj, {"initial", "states", "regions", "final", "on", "always", "on_enter", "on_exit", "timeout",
                        "on_done", "on_failed", "description"});
    const StateKind kind = states_[i].kind;
    auto forbid = [&](std::initializer_list<std::string_view> keys, const char* why) {
      for (auto k : keys)
        if (obj.contains(k)) fail(i, "\"" + std::string(k) + "\" not allowed: " + why);
    };
    if (kind == StateKind::Final) {
      forbid({"initial", "states", "regions", "on", "always", "on_exit", "timeout", "on_done", "on_failed"},
             "a final state is never left");
      states_[i].outcome = string_field(i, obj.at("final"), "final");
    }
    if (kind == StateKind::Parallel) {
      forbid({"initial", "states"}, "a parallel state has regions, not states");
      parse_regions(i, obj.at("regions"));
      const bj::value* done = obj.if_contains("on_done");
      if (!done) fail(i, "a parallel state needs \"on_done\" (where to go when every region has finished)");
      states_[i].on_done = Transition{string_field(i, *done, "on_done"), {}, {}};
      if (const bj::value* failed = obj.if_contains("on_failed"))
        states_[i].on_failed = Transition{string_field(i, *failed, "on_failed"), {}, {}};
    } else {
      forbid({"on_done", "on_failed"}, "only parallel states join");
    }
    if (kind == StateKind::Compound) parse_container(i, obj);
    if (kind == StateKind::Atomic) forbid({"initial"}, "\"initial\" needs \"states\"");

    if (const bj::value* on = obj.if_contains("on")) {
      if (!on->is_object()) fail(i, "\"on\" must be an object of event kind → transitions");
      for (const auto& kv : on->as_object()) {
        const std::string kind_name(kv.key());
        if (kind_name.empty()) fail(i, "empty event kind in \"on\"");
        if (kind_name == "Timeout" || kind_name == "Finished")
          fail(i, "event kind '" + kind_name + "' is the engine's own (use \"timeout\" / a parallel state)");
        states_[i].on.emplace_back(kind_name, parse_transitions(i, kv.value(), "on '" + kind_name + "'"));
      }
    }
    if (const bj::value* always = obj.if_contains("always"))
      states_[i].always = parse_transitions(i, *always, "always");
    if (const bj::value* a = obj.if_contains("on_enter")) states_[i].on_enter = parse_actions(i, *a, "on_enter");
    if (const bj::value* a = obj.if_contains("on_exit")) states_[i].on_exit = parse_actions(i, *a, "on_exit");
    if (const bj::value* t = obj.if_contains("timeout")) parse_timeout(i, *t);
  }

  void parse_regions(std::size_t i, const bj::value& regions) {
    if (!regions.is_object() || regions.as_object().empty())
      fail(i, "\"regions\" must be a non-empty object (a parallel state needs at least one region)");
    for (const auto& kv : regions.as_object()) {
      if (!kv.value().is_object()) fail(i, "region '" + std::string(kv.key()) + "' must be an object");
      const std::size_t r = add(i, kv.key(), StateKind::Region);
      check_keys(r, kv.value().as_object(), {"initial", "states", "description"});
      parse_container(r, kv.value().as_object());
    }
  }

  std::vector<Transition> parse_transitions(std::size_t i, const bj::value& v, const std::string& where) {
    std::vector<Transition> out;
    if (v.is_array()) {
      if (v.as_array().empty()) fail(i, where + ": empty transition list");
      for (const bj::value& t : v.as_array()) out.push_back(parse_transition(i, t, where));
    } else {
      out.push_back(parse_transition(i, v, where));
    }
    return out;
  }

  Transition parse_transition(std::size_t i, const bj::value& v, const std::string& where) {
    Transition t;
    if (v.is_string()) {
      t.target = string_field(i, v, where + " target");
      return t;
    }
    if (!v.is_object()) fail(i, where + ": a transition is a target name or {\"target\", \"guard\", \"actions\"}");
    const bj::object& obj = v.as_object();
    check_keys(i, obj, {"target", "guard", "actions"});
    const bj::value* target = obj.if_contains("target");
    if (!target) fail(i, where + ": transition without \"target\"");
    t.target = string_field(i, *target, "target");
    if (const bj::value* guard = obj.if_contains("guard")) {
      if (!guard->is_object()) fail(i, where + ": \"guard\" must be an object of field → value");
      t.guard = guard->as_object();
    }
    if (const bj::value* actions = obj.if_contains("actions")) t.actions = parse_actions(i, *actions, where);
    return t;
  }

  std::vector<ActionCall> parse_actions(std::size_t i, const bj::value& v, const std::string& where) {
    if (!v.is_array()) fail(i, where + ": actions must be a list");
    std::vector<ActionCall> out;
    for (const bj::value& a : v.as_array()) {
      ActionCall call;
      if (a.is_string()) {
        call.name = std::string(a.as_string());
      } else if (a.is_object()) {
        check_keys(i, a.as_object(), {"action", "args"});
        const bj::value* name = a.as_object().if_contains("action");
        if (!name) fail(i, where + ": action object without \"action\"");
        call.name = string_field(i, *name, "action");
        if (const bj::value* args = a.as_object().if_contains("args")) {
          if (!args->is_object()) fail(i, where + ": action '" + call.name + "': \"args\" must be an object");
          call.args = args->as_object();
        }
      } else {
        fail(i, where + ": an action is \"name\" or {\"action\": \"name\", \"args\": {...}}");
      }
      if (!actions_.find(call.name)) fail(i, where + ": unknown action '" + call.name + "'");
      try {
        actions_.check_args(call.name, call.args);
      } catch (const InvalidArgument& e) {
        fail(i, where + ": " + e.what());
      }
      out.push_back(std::move(call));
    }
    return out;
  }

  void parse_timeout(std::size_t i, const bj::value& v) {
    const char* shape = "\"timeout\" must be {\"after\": <seconds > 0>, \"target\": \"<state>\"}";
    if (!v.is_object()) fail(i, shape);
    const bj::object& obj = v.as_object();
    check_keys(i, obj, {"after", "target"});
    const bj::value* after = obj.if_contains("after");
    const bj::value* target = obj.if_contains("target");
    if (!after || !after->is_number() || !target) fail(i, shape);
    const double seconds = after->to_number<double>();
    if (!std::isfinite(seconds) || seconds <= 0) fail(i, shape);
    states_[i].timeout = StateTimeout{seconds, Transition{string_field(i, *target, "timeout target"), {}, {}}};
  }

  void resolve_target(std::size_t i, Transition& t, const std::string& where) {
    auto it = names_.find(t.target);
    if (it == names_.end()) fail(i, where + ": unknown target '" + t.target + "'");
    t.to = it->second;
    if (states_[t.to].scope != states_[i].scope)
      fail(i, where + ": target '" + t.target + "' is across a region boundary (regions run as child executions)");
  }

  void resolve(std::size_t i) {
    State& s = states_[i];
    if (!initial_names_[i].empty()) {
      for (std::size_t c : s.children)
        if (states_[c].name == initial_names_[i]) s.initial = c;
      if (s.initial == kNoState) fail(i, "initial '" + initial_names_[i] + "' is not one of its states");
    }
    for (auto& [kind, transitions] : s.on)
      for (Transition& t : transitions) resolve_target(i, t, "on '" + kind + "'");
    for (Transition& t : s.always) resolve_target(i, t, "always");
    if (s.timeout) resolve_target(i, s.timeout->transition, "timeout");
    if (s.on_done) resolve_target(i, *s.on_done, "on_done");
    if (s.on_failed) resolve_target(i, *s.on_failed, "on_failed");
  }

  void check_placement(std::size_t i) {
    const State& s = states_[i];
    if (s.kind == StateKind::Final && s.parent != s.scope)
      fail(i, "a final state must be top-level or directly inside a region (it ends the execution)");
    if (s.kind == StateKind::Region) {
      bool has_final = false;
      for (std::size_t c : s.children) has_final = has_final || states_[c].kind == StateKind::Final;
      if (!has_final) fail(i, "no final state, so its child execution could never finish");
    }
  }

  // Entering a state enters its ancestors and its initial descendants (all
  // regions, for a parallel state); every transition out of an entered state
  // leads on. A state nothing leads to is a mistake (a typo'd target, usually).
  void check_reachable() {
    std::vector<bool> reached(states_.size(), false);  // active at some point
    std::vector<bool> entered(states_.size(), false);  // targeted or initial: its initial descendants follow
    std::vector<std::size_t> work;                     // reached states whose transitions are not followed yet
    auto enter = [&](auto&& self, std::size_t s) -> void {
      if (entered[s]) return;
      entered[s] = true;
      for (std::size_t a = s; a != kNoState && !reached[a]; a = states_[a].parent) {
        reached[a] = true;
        work.push_back(a);
      }
      const State& st = states_[s];
      if (st.kind == StateKind::Parallel) {
        for (std::size_t r : st.children) self(self, r);
      } else if (st.initial != kNoState) {
        self(self, st.initial);
      }
    };
    enter(enter, 0);
    while (!work.empty()) {
      const State& st = states_[work.back()];
      work.pop_back();
      for (const auto& entry : st.on)
        for (const Transition& t : entry.second) enter(enter, t.to);
      for (const Transition& t : st.always) enter(enter, t.to);
      if (st.timeout) enter(enter, st.timeout->transition.to);
      if (st.on_done) enter(enter, st.on_done->to);
      if (st.on_failed) enter(enter, st.on_failed->to);
    }
    for (std::size_t i = 1; i < states_.size(); ++i)
      if (!reached[i]) fail(i, "unreachable (no initial, transition, timeout or join leads here)");
  }

  const bj::object& doc_;
  const ActionRegistry& actions_;
  std::string id_;
  std::vector<State> states_;
  std::vector<std::string> initial_names_;  // by state index; "" where none
  std::unordered_map<std::string, std::size_t> names_;
};

}  // namespace

const std::vector<Transition>* State::transitions_on(std::string_view event_kind) const {
  for (const auto& entry : on)
    if (entry.first == event_kind) return &entry.second;
  return nullptr;
}

Definition::Definition(std::string id, std::vector<State> states, boost::json::object json)
    : id_(std::move(id)), states_(std::move(states)), json_(std::move(json)) {
  for (std::size_t i = 0; i < states_.size(); ++i) {
    by_path_.emplace(states_[i].path, i);
    if (i != 0 && states_[i].kind != StateKind::Region) by_name_.emplace(states_[i].name, i);
  }
}

std::size_t Definition::find_path(std::string_view path) const {
  auto it = by_path_.find(std::string(path));
  return it == by_path_.end() ? kNoState : it->second;
}

std::size_t Definition::find_name(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? kNoState : it->second;
}

std::shared_ptr<const Definition> definition_from_json(const boost::json::object& doc, const ActionRegistry& actions) {
  return Compiler(doc, actions).run();
}

std::shared_ptr<const Definition> parse_definition(std::string_view json_text, const ActionRegistry& actions) {
  boost::system::error_code ec;
  bj::value doc = bj::parse(json_text, ec);
  if (ec) throw InvalidArgument("definition: invalid JSON: " + ec.message());
  if (!doc.is_object()) throw InvalidArgument("definition: the document must be a JSON object");
  return definition_from_json(doc.as_object(), actions);
}

std::shared_ptr<const Definition> load_definition_file(const std::string& path, const ActionRegistry& actions) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw InvalidArgument("cannot read definition file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_definition(text.str(), actions);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(path + ": " + e.what());
  }
}

}  // namespace harel::runtime
