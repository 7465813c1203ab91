#include "harel/runtime/definitions.h"

#include "harel/errors.h"

namespace harel::runtime {

Definitions::Definitions(std::shared_ptr<const ActionRegistry> actions) : actions_(std::move(actions)) {}

const std::string& Definitions::add(std::shared_ptr<const Definition> definition) {
  std::string id = definition->id();
  auto [it, inserted] = engines_.insert_or_assign(std::move(id), Engine(std::move(definition), actions_));
  return it->first;
}

const std::string& Definitions::add_json(std::string_view json_text) {
  return add(parse_definition(json_text, *actions_));
}

const Engine& Definitions::engine(std::string_view definition_id) const {
  auto it = engines_.find(definition_id);
  if (it == engines_.end()) throw UnknownDefinition(std::string(definition_id));
  return it->second;
}

}  // namespace harel::runtime
