// Definitions: the statechart definitions a runner or worker knows, by id,
// each with its engine.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "harel/runtime/engine.h"

namespace harel::runtime {

class Definitions {
 public:
  explicit Definitions(std::shared_ptr<const ActionRegistry> actions);

  // Adds (or replaces) a definition; returns its id.
  const std::string& add(std::shared_ptr<const Definition> definition);
  // Parses JSON text with this set's actions and adds it.
  const std::string& add_json(std::string_view json_text);

  // The engine for `definition_id`; UnknownDefinition if there is none.
  const Engine& engine(std::string_view definition_id) const;
  const ActionRegistry& actions() const { return *actions_; }

 private:
  std::shared_ptr<const ActionRegistry> actions_;
  std::map<std::string, Engine, std::less<>> engines_;
};

}  // namespace harel::runtime
