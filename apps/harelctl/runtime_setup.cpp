#include "runtime_setup.h"

#include <algorithm>
#include <filesystem>

#include "examples.h"
#include "harel/errors.h"

namespace harelctl {

std::shared_ptr<const harel::runtime::Definitions> load_definitions(const std::string& dir) {
  auto actions = std::make_shared<const harel::runtime::ActionRegistry>(harel::runtime::builtin_actions());
  auto definitions = std::make_shared<harel::runtime::Definitions>(actions);
  definitions->add_json(kOrderDefinition);
  definitions->add_json(kLedgerDefinition);
  if (dir.empty()) return definitions;
  if (!std::filesystem::is_directory(dir)) throw harel::InvalidArgument("--definitions: '" + dir + "' is not a directory");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) definitions->add(harel::runtime::load_definition_file(file.string(), *actions));
  return definitions;
}

}  // namespace harelctl
