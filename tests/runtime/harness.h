// Shared helpers for the runtime tests: a registry with recording actions and
// a small wrapper that starts executions and sends them events.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "harel/runtime/actions.h"
#include "harel/runtime/definition.h"
#include "harel/runtime/engine.h"

namespace harel::runtime::testing {

// builtin_actions() plus "log" (appends args.s to context.log) and "boom" (throws).
inline ActionRegistry test_actions() {
  ActionRegistry r = builtin_actions();
  r.add("log", [](ActionContext& c) {
    boost::json::value& log = c.context["log"];
    if (!log.is_array()) log = boost::json::array();
    log.as_array().push_back(c.args.at("s"));
  });
  r.add("boom", [](ActionContext&) { throw std::runtime_error("boom"); });
  return r;
}

inline Execution new_execution(std::string id, std::string definition_id, boost::json::object context = {}) {
  Execution e;
  e.id = std::move(id);
  e.definition_id = std::move(definition_id);
  e.context = std::move(context);
  return e;
}

inline Event make_event(std::string id, std::string kind, boost::json::object data = {}) {
  Event ev;
  ev.id = std::move(id);
  ev.kind = std::move(kind);
  ev.data = std::move(data);
  return ev;
}

// The strings the "log" action recorded.
inline std::vector<std::string> log_of(const Execution& e) {
  std::vector<std::string> out;
  if (const boost::json::value* log = e.context.if_contains("log"))
    for (const auto& s : log->as_array()) out.emplace_back(s.as_string());
  return out;
}

// One definition and its engine; send() numbers event ids "ev-1", "ev-2", ...
class Machine {
 public:
  explicit Machine(std::string_view json)
      : actions_(std::make_shared<const ActionRegistry>(test_actions())),
        definition_(parse_definition(json, *actions_)),
        engine_(definition_, actions_) {}

  const Engine& engine() const { return engine_; }
  const Definition& definition() const { return *definition_; }

  Step start(const std::string& id = "e1", boost::json::object context = {}, EpochSeconds now = 0) const {
    return engine_.start(new_execution(id, definition_->id(), std::move(context)), now);
  }

  Step send(const Execution& e, std::string kind, boost::json::object data = {}, EpochSeconds now = 0) {
    return engine_.handle(e, make_event("ev-" + std::to_string(++events_), std::move(kind), std::move(data)), now);
  }

 private:
  std::shared_ptr<const ActionRegistry> actions_;
  std::shared_ptr<const Definition> definition_;
  Engine engine_;
  int events_ = 0;
};

}  // namespace harel::runtime::testing
