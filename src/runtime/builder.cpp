#include "harel/runtime/builder.h"

namespace harel::runtime {
namespace {

namespace bj = boost::json;

bj::value action_json(const ActionCall& call) {
  if (call.args.empty()) return bj::value(call.name);
  return bj::object{{"action", call.name}, {"args", call.args}};
}

bj::array actions_json(const std::vector<ActionCall>& calls) {
  bj::array out;
  for (const ActionCall& call : calls) out.push_back(action_json(call));
  return out;
}

// The shortest of the equivalent shapes: "Target", {...}, or a list.
bj::value transitions_json(const std::vector<Transition>& transitions) {
  auto one = [](const Transition& t) -> bj::value {
    if (t.guard.empty() && t.actions.empty()) return bj::value(t.target);
    bj::object obj{{"target", t.target}};
    if (!t.guard.empty()) obj["guard"] = t.guard;
    if (!t.actions.empty()) obj["actions"] = actions_json(t.actions);
    return obj;
  };
  if (transitions.size() == 1) return one(transitions.front());
  bj::array out;
  for (const Transition& t : transitions) out.push_back(one(t));
  return out;
}

}  // namespace

StateBuilder& StateBuilder::child(Children& children, const std::string& name) {
  for (auto& [n, c] : children)
    if (n == name) return *c;
  children.emplace_back(name, std::make_unique<StateBuilder>());
  return *children.back().second;
}

StateBuilder& StateBuilder::initial(std::string state_name) {
  initial_ = std::move(state_name);
  return *this;
}

StateBuilder& StateBuilder::state(const std::string& name) { return child(states_, name); }
StateBuilder& StateBuilder::region(const std::string& name) { return child(regions_, name); }

StateBuilder& StateBuilder::on_done(std::string target) {
  on_done_ = std::move(target);
  return *this;
}

StateBuilder& StateBuilder::on_failed(std::string target) {
  on_failed_ = std::move(target);
  return *this;
}

StateBuilder& StateBuilder::final(std::string outcome) {
  final_ = std::move(outcome);
  return *this;
}

StateBuilder& StateBuilder::on(const std::string& event_kind, std::string target) {
  return on(event_kind, Transition{std::move(target), {}, {}});
}

StateBuilder& StateBuilder::on(const std::string& event_kind, Transition transition) {
  for (auto& [kind, transitions] : on_) {
    if (kind == event_kind) {
      transitions.push_back(std::move(transition));
      return *this;
    }
  }
  on_.emplace_back(event_kind, std::vector<Transition>{std::move(transition)});
  return *this;
}

StateBuilder& StateBuilder::always(std::string target) { return always(Transition{std::move(target), {}, {}}); }

StateBuilder& StateBuilder::always(Transition transition) {
  always_.push_back(std::move(transition));
  return *this;
}

StateBuilder& StateBuilder::timeout(EpochSeconds after, std::string target) {
  timeout_.emplace(after, std::move(target));
  return *this;
}

StateBuilder& StateBuilder::on_enter(std::string action, boost::json::object args) {
  on_enter_.push_back(ActionCall{std::move(action), std::move(args)});
  return *this;
}

StateBuilder& StateBuilder::on_exit(std::string action, boost::json::object args) {
  on_exit_.push_back(ActionCall{std::move(action), std::move(args)});
  return *this;
}

boost::json::object StateBuilder::to_json() const {
  bj::object out;
  auto children = [](const Children& cs) {
    bj::object obj;
    for (const auto& [name, c] : cs) obj[name] = c->to_json();
    return obj;
  };
  if (initial_) out["initial"] = *initial_;
  if (!states_.empty()) out["states"] = children(states_);
  if (!regions_.empty()) out["regions"] = children(regions_);
  if (on_done_) out["on_done"] = *on_done_;
  if (on_failed_) out["on_failed"] = *on_failed_;
  if (final_) out["final"] = *final_;
  if (!on_.empty()) {
    bj::object on;
    for (const auto& [kind, transitions] : on_) on[kind] = transitions_json(transitions);
    out["on"] = std::move(on);
  }
  if (!always_.empty()) out["always"] = transitions_json(always_);
  if (timeout_) out["timeout"] = bj::object{{"after", timeout_->first}, {"target", timeout_->second}};
  if (!on_enter_.empty()) out["on_enter"] = actions_json(on_enter_);
  if (!on_exit_.empty()) out["on_exit"] = actions_json(on_exit_);
  return out;
}

DefinitionBuilder& DefinitionBuilder::initial(std::string state_name) {
  root_.initial(std::move(state_name));
  return *this;
}

StateBuilder& DefinitionBuilder::state(const std::string& name) { return root_.state(name); }

boost::json::object DefinitionBuilder::to_json() const {
  bj::object doc{{"id", id_}};
  for (auto& kv : root_.to_json()) doc[kv.key()] = kv.value();
  return doc;
}

std::shared_ptr<const Definition> DefinitionBuilder::build(const ActionRegistry& actions) const {
  return definition_from_json(to_json(), actions);
}

}  // namespace harel::runtime
