// DefinitionBuilder: the JSON definition model (definition.h), written in C++.
//
//   DefinitionBuilder b("order");
//   b.initial("Cart");
//   b.state("Cart").on("Pay", {.target = "Fulfil", .guard = {{"method", "card"}}});
//   StateBuilder& fulfil = b.state("Fulfil").initial("Waiting").timeout(30, "Cart");
//   fulfil.state("Waiting").on("Shipped", "Done");
//   b.state("Done").final("success");
//   auto definition = b.build(builtin_actions());
//
// build() writes the equivalent JSON document and validates it exactly as
// parse_definition does, so both routes accept and reject the same charts.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include "harel/runtime/actions.h"
#include "harel/runtime/definition.h"

namespace harel::runtime {

// One state (or region) under construction. Calls return *this for chaining,
// except state()/region(), which return the child so it can be filled in.
class StateBuilder {
 public:
  StateBuilder() = default;
  StateBuilder(StateBuilder&&) = default;
  StateBuilder& operator=(StateBuilder&&) = default;

  // Compound states and regions: the child entered first, and the children
  // (created on first use; the same name returns the same child).
  StateBuilder& initial(std::string child);
  StateBuilder& state(const std::string& name);
  // Parallel states: a region (fill in its initial() and state()s).
  StateBuilder& region(const std::string& name);
  StateBuilder& on_done(std::string target);
  StateBuilder& on_failed(std::string target);
  // Makes this a final state with `outcome`.
  StateBuilder& final(std::string outcome);

  // Transitions; several for one event kind (or several always) are tried in
  // the order added. `to` is ignored (validation resolves it).
  StateBuilder& on(const std::string& event_kind, std::string target);
  StateBuilder& on(const std::string& event_kind, Transition transition);
  StateBuilder& always(std::string target);
  StateBuilder& always(Transition transition);
  StateBuilder& timeout(EpochSeconds after, std::string target);

  StateBuilder& on_enter(std::string action, boost::json::object args = {});
  StateBuilder& on_exit(std::string action, boost::json::object args = {});

  // This state's JSON object (definition.h's format).
  boost::json::object to_json() const;

 private:
  using Children = std::vector<std::pair<std::string, std::unique_ptr<StateBuilder>>>;
  static StateBuilder& child(Children& children, const std::string& name);

  std::optional<std::string> initial_;
  Children states_;
  Children regions_;
  std::optional<std::string> on_done_;
  std::optional<std::string> on_failed_;
  std::optional<std::string> final_;
  std::vector<std::pair<std::string, std::vector<Transition>>> on_;
  std::vector<Transition> always_;
  std::optional<std::pair<EpochSeconds, std::string>> timeout_;
  std::vector<ActionCall> on_enter_;
  std::vector<ActionCall> on_exit_;
};

class DefinitionBuilder {
 public:
  explicit DefinitionBuilder(std::string id) : id_(std::move(id)) {}

  // The top-level initial state and top-level states.
  DefinitionBuilder& initial(std::string state);
  StateBuilder& state(const std::string& name);

  // The definition as a JSON document, as a definition file would hold it.
  boost::json::object to_json() const;

  // Validates (definition_from_json's errors) and returns the definition.
  std::shared_ptr<const Definition> build(const ActionRegistry& actions) const;

 private:
  std::string id_;
  StateBuilder root_;
};

}  // namespace harel::runtime
