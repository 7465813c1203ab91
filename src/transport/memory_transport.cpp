#include "harel/transport/memory_transport.h"

#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "harel/errors.h"
#include "transport/validate.h"

namespace harel {

namespace {

using Clock = std::chrono::steady_clock;

// `d` after `now`, saturating: a huge visibility means "until further notice",
// not an overflow into the past.
Clock::time_point later(Clock::time_point now, std::chrono::milliseconds d) {
  if (d >= std::chrono::duration_cast<std::chrono::milliseconds>(Clock::time_point::max() - now))
    return Clock::time_point::max();
  return now + d;
}

struct Message {
  std::string group_id;
  Event event;
  Clock::time_point enqueued_at;
  Clock::time_point visible_at;  // claimable from then on: the end of a lease or of a delay
  // The receipt of the last claim while that claim has not ended: it is
  // active, or it expired (and counts as an attempt at the next claim).
  std::string token;
  std::int64_t attempts = 0;
  std::string last_error;
  Settlement settle;
};

}  // namespace

struct MemoryTransport::State {
  std::mutex mu;
  bool closed = false;
  std::int64_t last_id = 0;
  std::int64_t last_claim = 0;  // numbers the tokens
  std::map<std::int64_t, Message> pending;  // by id, i.e. publish order
  std::map<std::int64_t, Message> parked;
  std::map<std::string, std::set<std::int64_t>, std::less<>> groups;  // each group's pending ids
  std::set<std::int64_t> heads;                                       // each group's lowest pending id
  std::map<std::string, std::int64_t, std::less<>> tokens;            // Message::token → id
  std::map<std::string, Clock::time_point, std::less<>> dedupe;       // dedupe id → published at
  Clock::time_point last_prune;

  void check_open() const {
    if (closed) throw BackendError("memory", "TransportClosed", "the memory transport is closed");
  }

  void append(std::string group_id, Event event, Settlement settle, Clock::time_point now) {
    const std::int64_t id = ++last_id;
    auto& ids = groups[group_id];
    if (ids.empty()) heads.insert(id);
    ids.insert(id);
    pending.emplace(id, Message{std::move(group_id), std::move(event), now, now, {}, 0, {}, std::move(settle)});
  }

  // Takes the head `id` out of its group; the next message becomes the head.
  void leave_group(std::int64_t id, const std::string& group_id) {
    heads.erase(id);
    auto group = groups.find(group_id);
    group->second.erase(id);
    if (group->second.empty())
      groups.erase(group);
    else
      heads.insert(*group->second.begin());
  }

  // Whether a publication with `dedupe_id` is new; remembers it if so. Old
  // ids are pruned once per window, not on every call.
  bool remember(const std::string& dedupe_id, Clock::time_point now) {
    if (now - last_prune >= kDedupeWindow) {
      std::erase_if(dedupe, [&](const auto& seen) { return now - seen.second >= kDedupeWindow; });
      last_prune = now;
    }
    auto [it, inserted] = dedupe.try_emplace(dedupe_id, now);
    if (!inserted && now - it->second < kDedupeWindow) return false;
    it->second = now;
    return true;
  }

  // The message `lease` still holds, or null when its claim has ended or
  // expired (or it is no lease of this transport).
  std::map<std::int64_t, Message>::iterator held(const Lease& lease, Clock::time_point now) {
    auto token = tokens.find(lease.token);
    if (token == tokens.end()) return pending.end();
    auto it = pending.find(token->second);
    return it->second.visible_at > now ? it : pending.end();
  }

  // Ends the claim `lease` holds and returns its message after `delay`,
  // counting `attempts` more (nack: 1, defer: 0). False for a stale lease.
  bool release(const Lease& lease, std::chrono::milliseconds delay, std::int64_t attempts) {
    transport::check_duration(delay, "delay");
    std::lock_guard lock(mu);
    check_open();
    const auto now = Clock::now();
    auto it = held(lease, now);
    if (it == pending.end()) return false;
    end_claim(it->second);
    it->second.attempts += attempts;
    it->second.visible_at = later(now, delay);
    return true;
  }

  // Ends the claim on `msg` (ack, nack, defer, park).
  void end_claim(Message& msg) {
    tokens.erase(msg.token);
    msg.token.clear();
  }
};

MemoryTransport::MemoryTransport() : state_(std::make_unique<State>()) {}

MemoryTransport::~MemoryTransport() = default;

void MemoryTransport::publish(std::span<const Publication> messages) {
  transport::check_publications(messages);
  std::lock_guard lock(state_->mu);
  state_->check_open();
  const auto now = Clock::now();
  for (const Publication& m : messages)
    if (!m.dedupe_id || state_->remember(*m.dedupe_id, now)) state_->append(m.group_id, m.event, m.settle, now);
}

std::vector<Lease> MemoryTransport::claim(std::string_view /*worker_id*/, std::chrono::milliseconds visibility,
                                          int max_messages) {
  transport::check_duration(visibility, "visibility");
  transport::check_max_messages(max_messages);
  std::lock_guard lock(state_->mu);
  state_->check_open();
  const auto now = Clock::now();
  std::vector<Lease> out;
  for (auto head = state_->heads.begin(); head != state_->heads.end() && std::ssize(out) < max_messages; ++head) {
    Message& msg = state_->pending.at(*head);
    if (msg.visible_at > now) continue;  // leased or delayed: its whole group waits
    if (!msg.token.empty()) {            // the last claim expired unended
      ++msg.attempts;
      state_->end_claim(msg);
    }
    msg.token = std::to_string(++state_->last_claim);
    state_->tokens.emplace(msg.token, *head);
    msg.visible_at = later(now, visibility);
    out.push_back({msg.group_id, msg.event, msg.token, msg.attempts, msg.settle});
  }
  return out;
}

bool MemoryTransport::ack(const Lease& lease) {
  std::lock_guard lock(state_->mu);
  state_->check_open();
  auto it = state_->held(lease, Clock::now());
  if (it == state_->pending.end()) return false;
  state_->end_claim(it->second);
  state_->leave_group(it->first, it->second.group_id);
  state_->pending.erase(it);
  return true;
}

bool MemoryTransport::nack(const Lease& lease, std::chrono::milliseconds delay) {
  return state_->release(lease, delay, 1);
}

bool MemoryTransport::defer(const Lease& lease, std::chrono::milliseconds delay) {
  return state_->release(lease, delay, 0);
}

bool MemoryTransport::extend(const Lease& lease, std::chrono::milliseconds visibility) {
  transport::check_duration(visibility, "visibility");
  std::lock_guard lock(state_->mu);
  state_->check_open();
  const auto now = Clock::now();
  auto it = state_->held(lease, now);
  if (it == state_->pending.end()) return false;
  it->second.visible_at = later(now, visibility);
  return true;
}

bool MemoryTransport::park(const Lease& lease, std::string_view last_error) {
  std::lock_guard lock(state_->mu);
  state_->check_open();
  auto it = state_->held(lease, Clock::now());
  if (it == state_->pending.end()) return false;
  state_->end_claim(it->second);
  state_->leave_group(it->first, it->second.group_id);
  auto node = state_->pending.extract(it);
  ++node.mapped().attempts;  // the parking claim failed too
  node.mapped().last_error = last_error;
  state_->parked.insert(std::move(node));
  return true;
}

std::vector<ParkedMessage> MemoryTransport::parked() {
  std::lock_guard lock(state_->mu);
  state_->check_open();
  std::vector<ParkedMessage> out;
  for (const auto& [id, msg] : state_->parked)
    out.push_back({std::to_string(id), msg.group_id, msg.event, msg.attempts, msg.last_error});
  return out;
}

std::int64_t MemoryTransport::requeue(std::optional<std::string_view> parked_id) {
  std::lock_guard lock(state_->mu);
  state_->check_open();
  const auto id = parked_id ? transport::parse_message_id(*parked_id) : std::nullopt;
  if (parked_id && !id) return 0;
  const auto now = Clock::now();
  auto first = id ? state_->parked.find(*id) : state_->parked.begin();
  auto last = id && first != state_->parked.end() ? std::next(first) : state_->parked.end();
  std::int64_t count = 0;
  // In id order, so a group's parked messages go back in their own order.
  for (auto it = first; it != last; ++count) {
    state_->append(std::move(it->second.group_id), std::move(it->second.event), std::move(it->second.settle), now);
    it = state_->parked.erase(it);
  }
  return count;
}

TransportBacklog MemoryTransport::backlog() {
  std::lock_guard lock(state_->mu);
  state_->check_open();
  TransportBacklog out;
  out.pending = std::ssize(state_->pending);
  out.parked = std::ssize(state_->parked);
  if (!state_->pending.empty()) {
    const auto age = Clock::now() - state_->pending.begin()->second.enqueued_at;
    out.oldest_age = std::chrono::duration_cast<std::chrono::milliseconds>(age);
  }
  return out;
}

void MemoryTransport::close() {
  std::lock_guard lock(state_->mu);
  state_->closed = true;
  state_->pending.clear();
  state_->parked.clear();
  state_->groups.clear();
  state_->heads.clear();
  state_->tokens.clear();
  state_->dedupe.clear();
}

}  // namespace harel
