#include "commands.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include "harel/errors.h"
#include "harel/json/write.h"
#include "harel/model/codec.h"
#include "harel/store/open.h"
#include "harel/transport/open.h"
#include "output.h"
#include "runtime_setup.h"

namespace harelctl {
namespace bj = boost::json;
using namespace harel;

namespace {

// Far enough ahead to count as "every timer" on every backend (DynamoDB
// numbers included).
constexpr double kEndOfTime = 32503680000.0;  // year 3000

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string or_dash(const std::optional<std::string>& s) { return s ? *s : "-"; }

Status parse_status_arg(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  if (auto s = parse_status(text)) return *s;
  throw InvalidArgument("unknown status '" + text +
                        "' (one of PENDING, RUNNING, DONE, CANCELLED, SUSPENDED, CANCELLING, FAILED)");
}

}  // namespace

int init(const Globals& g) {
  // Opening a store creates its file or tables.
  open_store(g.store_url)->close();
  if (g.json)
    std::cout << compact_json(bj::object{{"store", g.store_url}, {"ready", true}}) << '\n';
  else
    std::cout << "store ready: " << g.store_url << '\n';
  return 0;
}

int list(const Globals& g, const ListOptions& o) {
  ListQuery q;
  for (const auto& s : o.statuses) q.statuses.push_back(parse_status_arg(s));
  q.definition_id = o.definition_id;
  q.roots_only = o.roots_only;
  q.limit = o.limit;
  q.cursor = o.cursor;
  auto store = open_store(g.store_url);

  std::vector<ExecutionSummary> items;
  std::optional<std::string> next;
  do {
    ExecutionPage page = store->list_executions(q);
    items.insert(items.end(), page.items.begin(), page.items.end());
    next = page.next_cursor;
    q.cursor = next;
  } while (o.all && next);

  if (g.json) {
    bj::array arr;
    for (const auto& s : items) arr.push_back(to_json_object(s));
    std::cout << compact_json(bj::object{{"items", std::move(arr)}, {"next_cursor", next ? bj::value(*next) : nullptr}})
              << '\n';
    return 0;
  }
  Table t({"ID", "DEFINITION", "STATUS", "OUTCOME", "ACTIVE", "PARENT", "VERSION"});
  for (const auto& s : items)
    t.add({s.id, s.definition_id, std::string(to_string(s.status)), or_dash(s.outcome), or_dash(s.active_path),
           or_dash(s.parent_id), std::to_string(s.version)});
  t.print(std::cout);
  if (next) std::cout << "more: --cursor " << *next << "  (or --all)\n";
  return 0;
}

int show(const Globals& g, const std::string& id) {
  auto store = open_store(g.store_url);
  const auto exe = store->load(id);
  if (!exe) throw InvalidArgument("no execution '" + id + "' in " + g.store_url);
  if (g.json) {
    std::cout << to_json(*exe) << '\n';
    return 0;
  }
  std::cout << pretty_json(bj::parse(to_json(*exe))) << '\n';
  return 0;
}

int trace(const Globals& g, const std::string& id) {
  auto store = open_store(g.store_url);
  const auto steps = store->read_trace(id);
  if (g.json) {
    bj::array arr(steps.begin(), steps.end());
    std::cout << compact_json(arr) << '\n';
    return 0;
  }
  if (steps.empty()) {
    std::cout << "no trace for " << id << " (tracing is opt-in)\n";
    return 0;
  }
  Table t({"INDEX", "STEP"});
  for (auto s : steps) {
    const auto index = s.at("index");
    s.erase("index");
    t.add({compact_json(index), compact_json(s)});
  }
  t.print(std::cout);
  return 0;
}

int outbox(const Globals& g) {
  auto store = open_store(g.store_url);
  const auto entries = store->pending_outbox();
  if (g.json) {
    bj::array arr;
    for (const auto& e : entries)
      arr.push_back(bj::object{{"seq", e.seq},
                               {"target_id", e.target_id ? bj::value(*e.target_id) : nullptr},
                               {"event", bj::parse(to_json(e.event))}});
    std::cout << compact_json(arr) << '\n';
    return 0;
  }
  Table t({"SEQ", "TARGET", "EVENT", "KIND", "DATA"});
  for (const auto& e : entries)
    t.add({std::to_string(e.seq), e.target_id ? *e.target_id : "(none)", e.event.id, e.event.kind,
           compact_json(e.event.data)});
  t.print(std::cout);
  // Where delivered events wait: the transport's queue, and the ones that
  // failed too often, parked there.
  if (const auto url = effective_transport_url(g); url && url->rfind("memory:", 0) != 0) {
    const auto transport = open_transport(*url);
    const TransportBacklog backlog = transport->backlog();
    std::cout << "\ntransport " << *url << ": " << backlog.pending << " pending, " << backlog.parked << " parked\n";
    if (backlog.parked) {
      std::cout << "parked (harelctl requeue ID | --all):\n";
      print_parked(transport->parked(), std::cout);
    }
  }
  return 0;
}

int spawns(const Globals& g) {
  auto store = open_store(g.store_url);
  const auto entries = store->pending_spawns();
  if (g.json) {
    bj::array arr;
    for (const auto& e : entries)
      arr.push_back(bj::object{{"seq", e.seq},
                               {"parent_id", e.parent_id},
                               {"child_id", e.child_id},
                               {"root_path", e.root_path},
                               {"context", e.context}});
    std::cout << compact_json(arr) << '\n';
    return 0;
  }
  Table t({"SEQ", "PARENT", "CHILD", "ROOT_PATH", "CONTEXT"});
  for (const auto& e : entries)
    t.add({std::to_string(e.seq), e.parent_id, e.child_id, e.root_path, compact_json(e.context)});
  t.print(std::cout);
  return 0;
}

int timers(const Globals& g, const TimersOptions& o) {
  auto store = open_store(g.store_url);
  const double bound = o.all ? kEndOfTime : o.due_at.value_or(now_seconds());
  const auto due = store->due_timers(bound);
  if (g.json) {
    bj::array arr;
    for (const auto& t : due)
      arr.push_back(bj::object{{"execution_id", t.execution_id}, {"path", t.path}, {"fire_at", t.fire_at}});
    std::cout << compact_json(arr) << '\n';
    return 0;
  }
  Table t({"EXECUTION", "PATH", "FIRE_AT", "FIRE_AT_UTC"});
  for (const auto& d : due) {
    std::string at;
    harel::json::write_double(at, d.fire_at);
    t.add({d.execution_id, d.path, at, format_epoch(d.fire_at)});
  }
  t.print(std::cout);
  return 0;
}

}  // namespace harelctl
