#include "harel/store/memory_store.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "harel/errors.h"
#include "harel/model/codec.h"
#include "store/listing.h"
#include "store/trace_ring.h"
#include "store/validate.h"

namespace harel {

namespace {
using Key2 = std::pair<std::string, std::string>;

struct Row {
  std::string data;  // the Execution's JSON, as a durable store keeps it
  ExecutionSummary summary;
};
}  // namespace

struct MemoryStore::State {
  std::mutex mu;
  std::map<std::string, Row, std::less<>> executions;
  std::set<Key2> processed;
  std::map<std::int64_t, OutboxEntry> outbox;
  std::map<std::int64_t, SpawnEntry> spawns;
  std::int64_t last_outbox_seq = 0;
  std::int64_t last_spawn_seq = 0;
  std::map<Key2, EpochSeconds> timers;
  std::map<std::string, std::map<std::int64_t, TraceStep>, std::less<>> trace;

  std::optional<Execution> load_locked(std::string_view id) const {
    auto it = executions.find(id);
    if (it == executions.end()) return std::nullopt;
    return parse_execution(it->second.data);
  }

  void append_trace_locked(const std::string& id, const TraceStep& entry, std::int64_t trace_max) {
    auto& ring = trace[id];
    const std::int64_t index = store::next_trace_index(entry, ring.empty() ? -1 : ring.rbegin()->first);
    ring[index] = entry;
    if (auto drop = store::trace_index_to_drop(index, trace_max)) ring.erase(*drop);
  }
};

MemoryStore::MemoryStore(std::int64_t trace_max) : state_(std::make_unique<State>()) { set_trace_max(trace_max); }

MemoryStore::~MemoryStore() = default;

std::optional<Execution> MemoryStore::load(std::string_view execution_id) {
  store::check_id(execution_id, "execution id");
  std::lock_guard lock(state_->mu);
  return state_->load_locked(execution_id);
}

LoadForEvent MemoryStore::load_for_event(std::string_view execution_id, std::string_view event_id) {
  store::check_id(execution_id, "execution id");
  store::check_id(event_id, "event id");
  std::lock_guard lock(state_->mu);
  return {state_->load_locked(execution_id),
          state_->processed.count({std::string(execution_id), std::string(event_id)}) > 0};
}

ExecutionPage MemoryStore::list_executions(const ListQuery& query) {
  store::check_query(query);
  const std::string after = query.cursor ? store::decode_after_cursor(*query.cursor) : std::string();
  std::lock_guard lock(state_->mu);
  ExecutionPage page;
  auto it = query.cursor ? state_->executions.upper_bound(after) : state_->executions.begin();
  for (; it != state_->executions.end(); ++it) {
    if (!store::matches(query, it->second.summary)) continue;
    if (static_cast<std::int64_t>(page.items.size()) == query.limit) {
      page.next_cursor = store::encode_after_cursor(page.items.back().id);
      break;
    }
    page.items.push_back(it->second.summary);
  }
  return page;
}

CommitReceipt MemoryStore::commit(Execution& exe, const Effects& effects) {
  store::check_commit(exe, effects);
  const std::int64_t trace_max = this->trace_max();
  std::lock_guard lock(state_->mu);
  State& s = *state_;

  const auto row = s.executions.find(exe.id);
  const std::optional<std::int64_t> stored =
      row == s.executions.end() ? std::nullopt : std::optional(row->second.summary.version);
  const bool cas_holds = exe.version == 0 ? !stored : stored == exe.version;
  if (!cas_holds) throw StoreConflict(exe.id, exe.version, stored);
  if (effects.processed_event_id && s.processed.count({exe.id, *effects.processed_event_id}))
    throw AlreadyProcessed(exe.id, *effects.processed_event_id, exe.version);

  // Build everything that can fail before the first mutation.
  const std::int64_t new_version = exe.version + 1;
  ExecutionSummary summary = ExecutionSummary::of(exe);
  summary.version = new_version;
  Row new_row{to_json(exe, new_version), std::move(summary)};

  s.executions.insert_or_assign(exe.id, std::move(new_row));
  CommitReceipt receipt;
  if (!effects.emits.empty()) receipt.first_outbox_seq = s.last_outbox_seq + 1;
  if (!effects.spawns.empty()) receipt.first_spawn_seq = s.last_spawn_seq + 1;
  for (const auto& emit : effects.emits) {
    const std::int64_t seq = ++s.last_outbox_seq;
    s.outbox.emplace(seq, OutboxEntry{seq, emit.target_id, emit.event});
  }
  for (const auto& spawn : effects.spawns) {
    const std::int64_t seq = ++s.last_spawn_seq;
    s.spawns.emplace(seq, SpawnEntry{seq, exe.id, spawn.child_id, spawn.root_path, spawn.context});
  }
  if (effects.processed_event_id) s.processed.emplace(exe.id, *effects.processed_event_id);
  for (const auto& op : effects.timers) {
    if (op.action == TimerOp::Action::Schedule)
      s.timers.insert_or_assign({exe.id, op.path}, op.fire_at);
    else
      s.timers.erase({exe.id, op.path});
  }
  if (effects.trace) s.append_trace_locked(exe.id, *effects.trace, trace_max);
  exe.version = new_version;
  return receipt;
}

bool MemoryStore::is_processed(std::string_view execution_id, std::string_view event_id) {
  store::check_id(execution_id, "execution id");
  store::check_id(event_id, "event id");
  std::lock_guard lock(state_->mu);
  return state_->processed.count({std::string(execution_id), std::string(event_id)}) > 0;
}

std::vector<OutboxEntry> MemoryStore::pending_outbox() {
  std::lock_guard lock(state_->mu);
  std::vector<OutboxEntry> out;
  for (const auto& [seq, entry] : state_->outbox) out.push_back(entry);
  return out;
}

void MemoryStore::ack_outbox(std::int64_t seq) {
  std::lock_guard lock(state_->mu);
  state_->outbox.erase(seq);
}

std::vector<SpawnEntry> MemoryStore::pending_spawns() {
  std::lock_guard lock(state_->mu);
  std::vector<SpawnEntry> out;
  for (const auto& [seq, entry] : state_->spawns) out.push_back(entry);
  return out;
}

void MemoryStore::ack_spawn(std::int64_t seq) {
  std::lock_guard lock(state_->mu);
  state_->spawns.erase(seq);
}

std::vector<DueTimer> MemoryStore::due_timers(EpochSeconds now) {
  std::lock_guard lock(state_->mu);
  std::vector<DueTimer> out;
  for (const auto& [key, fire_at] : state_->timers)
    if (fire_at <= now) out.push_back({key.first, key.second, fire_at});
  std::stable_sort(out.begin(), out.end(), [](const DueTimer& a, const DueTimer& b) { return a.fire_at < b.fire_at; });
  return out;
}

bool MemoryStore::delete_timer(std::string_view execution_id, std::string_view path, EpochSeconds fire_at) {
  store::check_id(execution_id, "execution id");
  std::lock_guard lock(state_->mu);
  auto it = state_->timers.find({std::string(execution_id), std::string(path)});
  if (it == state_->timers.end() || it->second != fire_at) return false;
  state_->timers.erase(it);
  return true;
}

std::vector<TraceStep> MemoryStore::read_trace(std::string_view execution_id) {
  store::check_id(execution_id, "execution id");
  std::lock_guard lock(state_->mu);
  std::vector<TraceStep> out;
  auto it = state_->trace.find(execution_id);
  if (it == state_->trace.end()) return out;
  for (const auto& [index, entry] : it->second) out.push_back(store::with_trace_index(entry, index));
  return out;
}

void MemoryStore::append_trace(std::string_view execution_id, const TraceStep& entry) {
  store::check_id(execution_id, "execution id");
  const std::int64_t trace_max = this->trace_max();
  std::lock_guard lock(state_->mu);
  state_->append_trace_locked(std::string(execution_id), entry, trace_max);
}

void MemoryStore::close() {}

}  // namespace harel
