// Listing helpers shared by the stores: the filter and the id-ordered cursor.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "harel/model/summary.h"
#include "harel/store/execution_store.h"

namespace harel::store {

// Whether `s` passes the query's filters (statuses any-of, definition_id,
// roots_only). The cursor and limit are not looked at.
bool matches(const ListQuery& query, const ExecutionSummary& s);

// Cursors of the stores that list in id order (memory, SQLite): the last id of
// the page, as base64url JSON {"after": id}. decode raises InvalidCursor for
// anything encode did not produce.
std::string encode_after_cursor(std::string_view last_id);
std::string decode_after_cursor(std::string_view cursor);

}  // namespace harel::store
