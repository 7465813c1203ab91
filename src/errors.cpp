#include "harel/errors.h"

namespace harel {
namespace {
std::string conflict_message(const std::string& id, std::int64_t expected,
                             const std::optional<std::int64_t>& found) {
  return "execution '" + id + "': version conflict, expected " + std::to_string(expected) + ", found " +
         (found ? std::to_string(*found) : std::string("no stored execution"));
}
}  // namespace

StoreConflict::StoreConflict(std::string execution_id, std::int64_t expected, std::optional<std::int64_t> found)
    : StoreConflict(conflict_message(execution_id, expected, found), std::move(execution_id), expected, found) {}

StoreConflict::StoreConflict(std::string message, std::string execution_id, std::int64_t expected,
                             std::optional<std::int64_t> found)
    : Error(message), execution_id_(std::move(execution_id)), expected_(expected), found_(found) {}

AlreadyProcessed::AlreadyProcessed(std::string execution_id, std::string event_id, std::int64_t version)
    : StoreConflict("execution '" + execution_id + "' has already processed event '" + event_id + "'", execution_id,
                    version, version),
      event_id_(std::move(event_id)) {}

UnknownDefinition::UnknownDefinition(std::string definition_id)
    : InvalidArgument("unknown definition '" + definition_id + "'"), definition_id_(std::move(definition_id)) {}

DecodeError::DecodeError(std::string field, const std::string& what)
    : Error(field.empty() ? what : "field '" + field + "': " + what), field_(std::move(field)) {}

CorruptRecord::CorruptRecord(std::string table, std::string key, const std::string& detail)
    : Error("corrupt record in table '" + table + "', key '" + key + "': " + detail),
      table_(std::move(table)),
      key_(std::move(key)) {}

BackendError::BackendError(std::string backend, std::string code, const std::string& message, int http_status)
    : Error(backend + " error " + code + (http_status ? " (HTTP " + std::to_string(http_status) + ")" : "") + ": " +
            message),
      backend_(std::move(backend)),
      code_(std::move(code)),
      http_status_(http_status) {}

}  // namespace harel
