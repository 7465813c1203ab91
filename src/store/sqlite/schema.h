// SqliteStore's schema and its versioning (PRAGMA user_version).
#pragma once

#include <cstdint>

#include "store/sqlite/connection.h"

namespace harel::store::sqlite {

// The schema version this build writes. Bump it together with a new step in
// schema.cpp's migration list.
inline constexpr std::int64_t kSchemaVersion = 1;

// Brings the file to kSchemaVersion: creates the tables in an empty file,
// runs the missing migration steps of an older one (in one transaction, so
// concurrent openers migrate once). Raises BackendError "SCHEMA_TOO_NEW" for
// a file of a newer build, naming the file and both versions.
void migrate(Connection& conn);

}  // namespace harel::store::sqlite
