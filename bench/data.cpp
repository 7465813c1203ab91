#include "data.h"

namespace harel::bench {

std::string DataGenerator::word() {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz";
  std::string w(8, 'a');
  for (char& c : w) c = kLetters[rng_() % 26];
  return w;
}

Execution DataGenerator::execution(std::string id) {
  Execution exe;
  exe.id = std::move(id);
  exe.definition_id = "order";
  exe.definition_fqn = "shop.workflows.order";
  exe.status = Status::Running;
  exe.active_path = "Order.Fulfilment.Shipping";
  exe.history["Order"] = "Order.Fulfilment";
  exe.history["Order.Fulfilment"] = "Order.Fulfilment.Shipping";
  exe.processed_events = 3;
  boost::json::array lines;
  for (int i = 0; i < 3; ++i)
    lines.push_back({{"sku", word()}, {"qty", static_cast<std::int64_t>(rng_() % 5 + 1)}, {"price", 9.95 + i}});
  exe.context = {{"order_id", word()},
                 {"customer", {{"id", word()}, {"name", word() + " " + word()}, {"tier", "gold"}}},
                 {"lines", std::move(lines)},
                 {"currency", "EUR"},
                 {"total", 42.5},
                 {"paid", true},
                 {"carrier", word()},
                 {"tracking", word() + word()},
                 {"attempts", 1},
                 {"notes", word() + " " + word() + " " + word()}};
  return exe;
}

Event DataGenerator::event(std::string id) {
  Event ev;
  ev.id = std::move(id);
  ev.kind = "Shipped";
  ev.created_time = "2024-05-01T12:00:00.000000Z";
  ev.data = {{"order_id", word()}, {"carrier", word()}, {"tracking", word() + word()}};
  return ev;
}

Effects DataGenerator::step_effects(const Execution& exe, std::string handled_event_id) {
  Effects fx;
  fx.emits.push_back({"notifier", event("out-" + handled_event_id)});
  fx.processed_event_id = std::move(handled_event_id);
  fx.timers.push_back(TimerOp::schedule(*exe.active_path, 1.7e9 + static_cast<double>(rng_() % 86'400)));
  return fx;
}

}  // namespace harel::bench
