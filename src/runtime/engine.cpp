#include "harel/runtime/engine.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "harel/errors.h"

namespace harel::runtime {
namespace {

namespace bj = boost::json;

// Ends the step with the execution FAILED (an action threw, or automatic
// transitions ran away). Internal: the engine never lets it escape.
struct StepFailed {
  std::string message;
};

bool json_equal(const bj::value& a, const bj::value& b) {
  // 1 and 1.0 are the same number to a workflow author.
  if (a.is_number() && b.is_number() && (a.is_double() || b.is_double()))
    return a.to_number<double>() == b.to_number<double>();
  return a == b;
}

// Every guard field equals the field of `data` (a missing field equals null).
bool guard_matches(const bj::object& guard, const bj::object& data) {
  static const bj::value null_value;
  for (const auto& kv : guard) {
    const bj::value* v = data.if_contains(kv.key());
    if (!json_equal(v ? *v : null_value, kv.value())) return false;
  }
  return true;
}

Status status_for(std::string_view outcome) {
  if (outcome == "failed") return Status::Failed;
  if (outcome == "cancelled") return Status::Cancelled;
  return Status::Done;
}

// One engine call: a working copy of the execution and the effects so far.
class Run {
 public:
  Run(const Definition& def, const ActionRegistry& actions, const Execution& input, const Event& event,
      EpochSeconds now)
      : def_(def),
        actions_(actions),
        input_(input),
        event_(event),
        now_(now),
        exe_(input),
        emit_prefix_(input.id + ":" + std::to_string(input.version + 1) + ":") {
    if (input.definition_id != def.id())
      throw InvalidArgument("execution '" + input.id + "' runs definition '" + input.definition_id + "', not '" +
                            def.id() + "'");
    if (!input.root_path.empty()) {
      scope_ = def.find_path(input.root_path);
      if (scope_ == kNoState || def.state(scope_).kind != StateKind::Region)
        throw InvalidArgument("execution '" + input.id + "': root_path '" + input.root_path +
                              "' is not a region of definition '" + def.id() + "'");
      if (!input.parent_id)
        throw InvalidArgument("execution '" + input.id + "' runs region '" + input.root_path + "' but has no parent_id");
    }
    if (input.active_path) {
      leaf_ = def.find_path(*input.active_path);
      if (leaf_ == kNoState || leaf_ == scope_ || def.state(leaf_).scope != scope_ ||
          def.state(leaf_).kind == StateKind::Region)
        throw InvalidArgument("execution '" + input.id + "': active_path '" + *input.active_path +
                              "' is not a state of " + (scope_ ? "region '" + input.root_path + "' of " : "") +
                              "definition '" + def.id() + "'");
    }
    input_leaf_ = leaf_;
  }

  Step start() {
    if (input_.status != Status::Pending)
      throw InvalidArgument("execution '" + input_.id + "': start needs a PENDING execution, not " +
                            std::string(to_string(input_.status)));
    exe_.status = Status::Running;
    try {
      enter_down(scope_, def_.state(scope_).initial);
      settle();
    } catch (const StepFailed& f) {
      return fail(f.message);
    }
    return finish(true);
  }

  Step handle() {
    exe_.processed_events += 1;
    if (exe_.status != Status::Running) return finish(false);
    if (leaf_ == kNoState)
      throw InvalidArgument("execution '" + input_.id + "' is RUNNING without an active_path");
    bool handled = false;
    try {
      handled = dispatch();
      if (handled) settle();
    } catch (const StepFailed& f) {
      return fail(f.message);
    }
    if (!handled) {  // nothing may have changed but the counter
      exe_ = input_;
      exe_.processed_events += 1;
      effects_ = Effects{};
    }
    return finish(handled);
  }

 private:
  const State& state(std::size_t i) const { return def_.state(i); }

  bool dispatch() {
    if (event_.kind == "Finished") return on_finished();
    if (event_.kind == "Timeout") return on_timeout();
    for (std::size_t s = leaf_; s != scope_; s = state(s).parent) {
      const std::vector<Transition>* transitions = state(s).transitions_on(event_.kind);
      if (!transitions) continue;
      for (const Transition& t : *transitions) {
        if (guard_matches(t.guard, event_.data)) {
          transition(s, t, "on '" + event_.kind + "'");
          return true;
        }
      }
    }
    return false;
  }

  std::string child_id(std::size_t region, std::int64_t n) const {
    return exe_.id + "." + state(region).path + "." + std::to_string(n);
  }

  bool on_finished() {
    const State& parallel = state(leaf_);
    if (parallel.kind != StateKind::Parallel) return false;
    const bj::value* id = event_.data.if_contains("child_id");
    if (!id || !id->is_string()) return false;
    // Only children of the current entry of this parallel state count: one
    // left over from an earlier entry must not complete this one.
    auto seq = exe_.invoke_seq.find(parallel.path);
    if (seq == exe_.invoke_seq.end()) return false;
    const std::int64_t n = seq->second - 1;
    bool current = false;
    for (std::size_t r : parallel.children) current = current || child_id(r, n) == id->as_string();
    auto child = exe_.children.find(id->as_string());
    if (!current || child == exe_.children.end() || child->second.finished) return false;

    child->second.finished = true;
    const bj::value* outcome = event_.data.if_contains("outcome");
    if (outcome && outcome->is_string()) child->second.outcome = std::string(outcome->as_string());

    bool all_finished = true;
    bool any_failed = false;
    for (std::size_t r : parallel.children) {
      auto c = exe_.children.find(child_id(r, n));
      all_finished = all_finished && c != exe_.children.end() && c->second.finished;
      any_failed = any_failed || (c != exe_.children.end() && c->second.outcome == "failed");
    }
    if (all_finished) {
      if (any_failed && parallel.on_failed)
        transition(leaf_, *parallel.on_failed, "on_failed");
      else
        transition(leaf_, *parallel.on_done, "on_done");
    }
    return true;
  }

  bool on_timeout() {
    const bj::value* path = event_.data.if_contains("path");
    if (!path || !path->is_string()) return false;
    for (std::size_t s = leaf_; s != scope_; s = state(s).parent) {
      if (state(s).path != path->as_string()) continue;
      if (!state(s).timeout) return false;
      transition(s, state(s).timeout->transition, "timeout");
      return true;
    }
    return false;  // a stale timer: its state was left
  }

  bool is_ancestor(std::size_t a, std::size_t s) const {  // proper ancestor
    for (s = state(s).parent; s != kNoState; s = state(s).parent)
      if (s == a) return true;
    return false;
  }

  void transition(std::size_t source, const Transition& t, const std::string& where) {
    std::size_t domain = state(source).parent;
    while (!is_ancestor(domain, t.to)) domain = state(domain).parent;

    const std::string left = state(leaf_).path;
    for (; leaf_ != domain; leaf_ = state(leaf_).parent) {
      const State& s = state(leaf_);
      run_actions(s.on_exit, "on_exit of '" + s.name + "'");
      if (s.timeout) timer(TimerOp::cancel(s.path));
      if (s.kind == StateKind::Compound) exe_.history.insert_or_assign(s.path, left);
    }
    run_actions(t.actions, where + " of '" + state(source).name + "'");
    enter_down(domain, t.to);
  }

  // Enters the states below `domain` down to `target`, then target's initial
  // descendants; the last one entered becomes the leaf.
  void enter_down(std::size_t domain, std::size_t target) {
    std::vector<std::size_t> chain;
    for (std::size_t s = target; s != domain; s = state(s).parent) chain.push_back(s);
    while (state(target).kind == StateKind::Compound) {
      target = state(target).initial;
      chain.insert(chain.begin(), target);
    }
    leaf_ = target;
    exe_.active_path = state(target).path;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) enter(*it);
  }

  void enter(std::size_t i) {
    const State& s = state(i);
    run_actions(s.on_enter, "on_enter of '" + s.name + "'");
    if (s.timeout) timer(TimerOp::schedule(s.path, now_ + s.timeout->after));
    if (s.kind == StateKind::Parallel) spawn_regions(s);
    if (s.kind == StateKind::Final) end(s.outcome);
  }

  void spawn_regions(const State& parallel) {
    std::int64_t& seq = exe_.invoke_seq[parallel.path];
    const std::int64_t n = seq++;
    for (std::size_t r : parallel.children) {
      const std::string id = child_id(r, n);
      effects_.spawns.push_back(SpawnRequest{id, state(r).path, exe_.context});
      ChildState child;
      child.root_path = state(r).path;
      child.key = state(r).name;
      exe_.children.insert_or_assign(id, std::move(child));
    }
  }

  void end(const std::string& outcome) {
    exe_.status = status_for(outcome);
    exe_.outcome = outcome;
    if (scope_ != 0) emit(exe_.parent_id, "Finished", {{"child_id", exe_.child_id.value_or(exe_.id)}, {"outcome", outcome}});
  }

  // Takes enabled automatic transitions until none is (or the execution ended).
  void settle() {
    for (int steps = 0; !is_terminal(exe_.status); ++steps) {
      std::size_t source = kNoState;
      const Transition* taken = nullptr;
      for (std::size_t s = leaf_; s != scope_ && !taken; s = state(s).parent) {
        for (const Transition& t : state(s).always) {
          if (guard_matches(t.guard, exe_.context)) {
            source = s;
            taken = &t;
            break;
          }
        }
      }
      if (!taken) return;
      if (steps == Engine::kMaxAutomaticSteps)
        throw StepFailed{"automatic transitions did not settle after " + std::to_string(steps) + " steps (at '" +
                         state(leaf_).path + "')"};
      transition(source, *taken, "always");
    }
  }

  void run_actions(const std::vector<ActionCall>& calls, const std::string& where) {
    for (const ActionCall& call : calls) {
      ActionContext ctx{exe_.context, event_, call.args, exe_, effects_.emits, emit_prefix_};
      try {
        (*actions_.find(call.name))(ctx);
      } catch (const std::exception& e) {
        throw StepFailed{"action '" + call.name + "' (" + where + ") failed: " + e.what()};
      }
    }
  }

  void emit(std::optional<std::string> target, std::string kind, bj::object data) {
    const bj::object no_args;
    ActionContext ctx{exe_.context, event_, no_args, exe_, effects_.emits, emit_prefix_};
    ctx.emit(std::move(target), std::move(kind), std::move(data));
  }

  // At most one op per timer path in a commit (a transaction may touch an
  // item once); the last one is what the step means.
  void timer(TimerOp op) {
    std::erase_if(effects_.timers, [&](const TimerOp& t) { return t.path == op.path; });
    effects_.timers.push_back(std::move(op));
  }

  // The step's effects are dropped; the execution as it was, FAILED. Its
  // states' timers are cancelled and a child still reports to its parent.
  Step fail(const std::string& message) {
    const std::int64_t processed = exe_.processed_events;
    exe_ = input_;
    exe_.processed_events = processed;
    effects_ = Effects{};
    for (std::size_t s = input_leaf_; s != kNoState && s != scope_; s = state(s).parent)
      if (state(s).timeout) timer(TimerOp::cancel(state(s).path));
    exe_.error = message;
    error_ = message;
    end("failed");
    return finish(true);
  }

  Step finish(bool handled) {
    TraceStep trace;
    trace["event_id"] = event_.id;
    trace["event_kind"] = event_.kind;
    trace["from_path"] = input_.active_path ? bj::value(*input_.active_path) : bj::value();
    trace["to_path"] = exe_.active_path ? bj::value(*exe_.active_path) : bj::value();
    trace["status"] = to_string(exe_.status);
    trace["handled"] = handled;
    if (error_) trace["error"] = *error_;
    effects_.trace = std::move(trace);
    return Step{std::move(exe_), std::move(effects_), handled};
  }

  const Definition& def_;
  const ActionRegistry& actions_;
  const Execution& input_;
  const Event& event_;
  const EpochSeconds now_;
  Execution exe_;
  Effects effects_;
  std::string emit_prefix_;
  std::size_t scope_ = 0;
  std::size_t leaf_ = kNoState;
  std::size_t input_leaf_ = kNoState;
  std::optional<std::string> error_;
};

}  // namespace

Engine::Engine(std::shared_ptr<const Definition> definition, std::shared_ptr<const ActionRegistry> actions)
    : definition_(std::move(definition)), actions_(std::move(actions)) {
  if (!definition_ || !actions_) throw InvalidArgument("engine: definition and actions are required");
  auto check = [&](const std::vector<ActionCall>& calls) {
    for (const ActionCall& call : calls)
      if (!actions_->find(call.name))
        throw InvalidArgument("engine for definition '" + definition_->id() + "': action '" + call.name +
                              "' is not registered");
  };
  for (const State& s : definition_->states()) {
    check(s.on_enter);
    check(s.on_exit);
    for (const auto& entry : s.on)
      for (const Transition& t : entry.second) check(t.actions);
    for (const Transition& t : s.always) check(t.actions);
  }
}

Step Engine::start(const Execution& exe, EpochSeconds now) const {
  const Event start_event{exe.id + ":start", "Start", std::nullopt, std::nullopt, {}, {}};
  return Run(*definition_, *actions_, exe, start_event, now).start();
}

Step Engine::handle(const Execution& exe, const Event& event, EpochSeconds now) const {
  return Run(*definition_, *actions_, exe, event, now).handle();
}

}  // namespace harel::runtime
