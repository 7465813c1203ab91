// Typed errors raised by every layer of harel.
//
// All derive from harel::Error, so a caller can catch the family at once or
// one kind precisely. Messages name the thing that was wrong (execution id,
// table, field) and never contain credentials.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace harel {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller passed something unusable (an empty id, a bad URL, a commit over
// a backend limit). Raised before anything is sent or written.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// Optimistic concurrency lost: the stored version was not `expected`.
// `found` is the version stored now, or nullopt when no row exists.
class StoreConflict : public Error {
 public:
  StoreConflict(std::string execution_id, std::int64_t expected, std::optional<std::int64_t> found);

  const std::string& execution_id() const noexcept { return execution_id_; }
  std::int64_t expected() const noexcept { return expected_; }
  const std::optional<std::int64_t>& found() const noexcept { return found_; }

 protected:
  StoreConflict(std::string message, std::string execution_id, std::int64_t expected,
                std::optional<std::int64_t> found);

 private:
  std::string execution_id_;
  std::int64_t expected_;
  std::optional<std::int64_t> found_;
};

// A commit carried the dedupe mark of an event the execution had already
// processed: another worker applied that event first (its load raced this
// one's). Nothing was written; reloading shows the event as processed.
class AlreadyProcessed : public StoreConflict {
 public:
  AlreadyProcessed(std::string execution_id, std::string event_id, std::int64_t version);
  const std::string& event_id() const noexcept { return event_id_; }

 private:
  std::string event_id_;
};

// An execution runs a definition this process does not know. A worker leaves
// such an execution's events to a worker that knows it (a mixed fleet).
class UnknownDefinition : public InvalidArgument {
 public:
  explicit UnknownDefinition(std::string definition_id);
  const std::string& definition_id() const noexcept { return definition_id_; }

 private:
  std::string definition_id_;
};

// A listing cursor that this store did not produce (garbage or tampered).
class InvalidCursor : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// A JSON document does not have the shape of the model type it should hold.
// `field` is the dotted path of the offending member ("" for the document).
class DecodeError : public Error {
 public:
  DecodeError(std::string field, const std::string& what);
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

// A stored record could not be read back (not JSON, wrong types, unknown
// enum spelling). Names the table and the record's key.
class CorruptRecord : public Error {
 public:
  CorruptRecord(std::string table, std::string key, const std::string& detail);
  const std::string& table() const noexcept { return table_; }
  const std::string& key() const noexcept { return key_; }

 private:
  std::string table_;
  std::string key_;
};

// The backend itself failed. Keeps the backend's own error code (an SQLite
// result code name, a DynamoDB `__type` such as "ThrottlingException") and,
// for HTTP backends, the status code (0 otherwise).
class BackendError : public Error {
 public:
  BackendError(std::string backend, std::string code, const std::string& message, int http_status = 0);
  const std::string& backend() const noexcept { return backend_; }
  const std::string& code() const noexcept { return code_; }
  int http_status() const noexcept { return http_status_; }

 private:
  std::string backend_;
  std::string code_;
  int http_status_;
};

}  // namespace harel
