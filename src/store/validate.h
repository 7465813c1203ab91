// Input checks shared by every store, run before anything is sent or written.
#pragma once

#include <string_view>

#include "harel/model/effects.h"
#include "harel/model/execution.h"
#include "harel/store/execution_store.h"

namespace harel::store {

// DynamoDB's limit for a partition key; applied everywhere so an id that works
// on one backend works on all.
inline constexpr std::size_t kMaxIdBytes = 2048;

// Raises InvalidArgument naming `what` if `id` is empty or too long.
void check_id(std::string_view id, std::string_view what);

// Checks the execution and every effect of a commit.
void check_commit(const Execution& exe, const Effects& effects);

void check_query(const ListQuery& query);

}  // namespace harel::store
