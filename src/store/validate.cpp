#include "store/validate.h"

#include <cmath>
#include <string>

#include "harel/errors.h"

namespace harel::store {

void check_id(std::string_view id, std::string_view what) {
  if (id.empty()) throw InvalidArgument(std::string(what) + " must not be empty");
  if (id.size() > kMaxIdBytes)
    throw InvalidArgument(std::string(what) + " is " + std::to_string(id.size()) + " bytes; the limit is " +
                          std::to_string(kMaxIdBytes));
}

void check_commit(const Execution& exe, const Effects& effects) {
  check_id(exe.id, "execution id");
  const std::string in = " (execution '" + exe.id + "')";
  if (exe.definition_id.empty()) throw InvalidArgument("definition_id must not be empty" + in);
  if (exe.version < 0) throw InvalidArgument("version must not be negative" + in);
  if (exe.priority < 0 || exe.priority > 4) throw InvalidArgument("priority must be 0..4" + in);
  for (const auto& emit : effects.emits) {
    if (emit.target_id) check_id(*emit.target_id, "emit target id" + in);
    check_id(emit.event.id, "emitted event id" + in);
    if (emit.event.kind.empty()) throw InvalidArgument("emitted event kind must not be empty" + in);
  }
  for (const auto& spawn : effects.spawns) check_id(spawn.child_id, "spawn child id" + in);
  for (const auto& timer : effects.timers) {
    check_id(timer.path, "timer path" + in);
    if (timer.action == TimerOp::Action::Schedule && !std::isfinite(timer.fire_at))
      throw InvalidArgument("timer fire_at must be finite" + in);
  }
  if (effects.processed_event_id) check_id(*effects.processed_event_id, "processed event id" + in);
}

void check_query(const ListQuery& query) {
  if (query.limit <= 0) throw InvalidArgument("limit must be positive, got " + std::to_string(query.limit));
  if (query.definition_id && query.definition_id->empty())
    throw InvalidArgument("definition_id filter must not be empty");
}

}  // namespace harel::store
