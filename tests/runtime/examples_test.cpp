// The shipped examples (examples/order.json, examples/ledger.json) parse, and
// a whole demo run, delivered by hand in memory, ends as examples/README.md says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "harel/runtime/definition.h"
#include "harel/runtime/engine.h"
#include "runtime/harness.h"

namespace harel::runtime {
namespace {

namespace bj = boost::json;

std::shared_ptr<const Definition> load_example(const std::string& name) {
  return load_definition_file(std::string(HAREL_EXAMPLES_DIR) + "/" + name, builtin_actions());
}

TEST(Examples, Parse) {
  auto order = load_example("order.json");
  EXPECT_EQ(order->id(), "order");
  EXPECT_EQ(order->state(order->find_name("Shipping")).kind, StateKind::Parallel);
  EXPECT_EQ(order->find_path("Fulfil.Shipping.Invoice"), order->state(order->find_name("Invoicing")).scope);
  EXPECT_EQ(load_example("ledger.json")->id(), "ledger");
}

// A store, outbox relay and timer sweep in a few lines: what the
// DurableRunner does, minus durability and concurrency.
class World {
 public:
  World() {
    auto actions = std::make_shared<const ActionRegistry>(builtin_actions());
    for (const char* file : {"order.json", "ledger.json"}) {
      auto def = load_example(file);
      engines_.emplace(def->id(), Engine(def, actions));
    }
  }

  void create(const std::string& id, const std::string& definition, EpochSeconds now) {
    commit(engines_.at(definition).start(testing::new_execution(id, definition), now));
  }

  void send(const std::string& id, const std::string& kind, bj::object data, EpochSeconds now) {
    const Execution& exe = executions_.at(id);
    commit(engine(exe).handle(exe, testing::make_event("ext-" + std::to_string(++external_), kind, std::move(data)),
                              now));
  }

  // The relay: creates spawned children and delivers emits until both are empty.
  void drain(EpochSeconds now) {
    while (!spawns_.empty() || !outbox_.empty()) {
      if (!spawns_.empty()) {
        auto [parent, spawn] = spawns_.front();
        spawns_.pop_front();
        Execution child = testing::new_execution(spawn.child_id, executions_.at(parent).definition_id, spawn.context);
        child.root_path = spawn.root_path;
        child.parent_id = parent;
        child.child_id = spawn.child_id;
        commit(engine(child).start(child, now));
        continue;
      }
      Emit emit = outbox_.front();
      outbox_.pop_front();
      ASSERT_TRUE(emit.target_id) << "untargeted " << emit.event.kind;
      const Execution& target = executions_.at(*emit.target_id);
      commit(engine(target).handle(target, emit.event, now));
    }
  }

  // The timer sweep: every due timer becomes a Timeout event.
  void sweep(EpochSeconds now) {
    auto due = timers_;
    for (const auto& [key, fire_at] : due) {
      if (fire_at > now) continue;
      timers_.erase(key);
      ++timers_fired;
      const Execution& exe = executions_.at(key.first);
      commit(engine(exe).handle(exe, testing::make_event("timer-" + key.first + "-" + key.second, "Timeout",
                                                          {{"path", key.second}}), now));
    }
  }

  const Execution& at(const std::string& id) const { return executions_.at(id); }
  std::size_t executions() const { return executions_.size(); }
  std::size_t armed_timers() const { return timers_.size(); }
  int timers_fired = 0;

 private:
  const Engine& engine(const Execution& exe) const { return engines_.at(exe.definition_id); }

  void commit(Step step) {
    step.execution.version += 1;
    const std::string id = step.execution.id;
    for (Emit& e : step.effects.emits) outbox_.push_back(std::move(e));
    for (SpawnRequest& s : step.effects.spawns) spawns_.emplace_back(id, std::move(s));
    for (const TimerOp& t : step.effects.timers) {
      if (t.action == TimerOp::Action::Schedule)
        timers_[{id, t.path}] = t.fire_at;
      else
        timers_.erase({id, t.path});
    }
    executions_.insert_or_assign(id, std::move(step.execution));
  }

  std::map<std::string, Engine> engines_;
  std::map<std::string, Execution> executions_;
  std::deque<Emit> outbox_;
  std::deque<std::pair<std::string, SpawnRequest>> spawns_;
  std::map<std::pair<std::string, std::string>, EpochSeconds> timers_;
  int external_ = 0;
};

// The script examples/README.md gives the demo driver.
TEST(Examples, DemoScriptReachesTheDocumentedEnd) {
  World w;
  w.create("ledger", "ledger", 0);
  const std::vector<std::pair<std::string, std::string>> orders{
      {"order-1", "card"}, {"order-2", "voucher"}, {"order-3", "cancel"}, {"order-4", "card"}};
  for (const auto& [id, method] : orders) {
    w.create(id, "order", 0);
    w.send(id, "AddItem", {}, 0);
    w.send(id, "AddItem", {}, 0);
    if (method == "cancel")
      w.send(id, "Cancel", {}, 0);
    else
      w.send(id, "Pay", {{"method", method}}, 0);
  }
  w.sweep(0.01);  // not due yet
  EXPECT_EQ(w.timers_fired, 0);
  EXPECT_EQ(w.at("order-1").active_path, "Fulfil.AwaitingCarrier");
  w.sweep(0.06);
  w.drain(0.06);

  EXPECT_EQ(w.timers_fired, 3);
  EXPECT_EQ(w.armed_timers(), 0u);
  for (const char* id : {"order-1", "order-4"}) {
    const Execution& done = w.at(id);
    EXPECT_EQ(done.status, Status::Done) << id;
    EXPECT_EQ(done.outcome, "success");
    EXPECT_EQ(done.active_path, "Completed");
    EXPECT_EQ(done.context, (bj::object{{"items", 2}, {"method", "card"}, {"stage", "closed"}}));
    EXPECT_EQ(done.processed_events, 6);  // AddItem x2, Pay, Timeout, Finished x2
    const Execution& pack = w.at(std::string(id) + ".Fulfil.Shipping.Pack.0");
    EXPECT_EQ(pack.status, Status::Done);
    EXPECT_EQ(pack.active_path, "Fulfil.Shipping.Pack.Packed");
    EXPECT_EQ(pack.parent_id, id);
    EXPECT_EQ(w.at(std::string(id) + ".Fulfil.Shipping.Invoice.0").active_path, "Fulfil.Shipping.Invoice.Invoiced");
  }
  const Execution& declined = w.at("order-2");
  EXPECT_EQ(declined.status, Status::Failed);
  EXPECT_EQ(declined.outcome, "failed");
  EXPECT_EQ(declined.active_path, "PaymentFailed");
  EXPECT_EQ(declined.context, (bj::object{{"items", 2}, {"method", "voucher"}, {"stage", "closed"}}));
  EXPECT_EQ(declined.processed_events, 6);
  EXPECT_EQ(w.at("order-2.Fulfil.Shipping.Invoice.0").status, Status::Failed);
  EXPECT_EQ(w.at("order-2.Fulfil.Shipping.Pack.0").context.at("packed"), true);

  const Execution& cancelled = w.at("order-3");
  EXPECT_EQ(cancelled.status, Status::Cancelled);
  EXPECT_EQ(cancelled.outcome, "cancelled");
  EXPECT_EQ(cancelled.active_path, "Cancelled");
  EXPECT_EQ(cancelled.context, (bj::object{{"items", 2}}));
  EXPECT_EQ(cancelled.processed_events, 3);

  const Execution& ledger = w.at("ledger");
  EXPECT_EQ(ledger.status, Status::Running);
  EXPECT_EQ(ledger.context, (bj::object{{"orders", 2}}));
  EXPECT_EQ(ledger.processed_events, 2);
  EXPECT_EQ(w.executions(), 1u + 4u + 3u * 2u);  // ledger, orders, two children per paid order
}

}  // namespace
}  // namespace harel::runtime
