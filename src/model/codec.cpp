#include "harel/model/codec.h"

#include "harel/errors.h"
#include "harel/json/parse.h"
#include "harel/json/write.h"

namespace harel {
namespace {

namespace bj = boost::json;
using json::Style;

// ---------------------------------------------------------------- writing

void key(std::string& out, std::string_view name, bool first = false) {
  if (!first) out += ',';
  out += '"';
  out += name;  // field names are plain ASCII literals
  out += "\":";
}

void write_opt(std::string& out, const std::optional<std::string>& s) {
  if (s)
    json::write_string(out, *s);
  else
    out += "null";
}

void write_extra(std::string& out, const bj::object& extra) {
  for (const auto& kv : extra) {
    out += ',';
    json::write_string(out, kv.key());
    out += ':';
    json::write(out, kv.value());
  }
}

void write_child(std::string& out, const ChildState& c) {
  key(out, "root_path", true);
  json::write_string(out, c.root_path);
  key(out, "finished");
  out += c.finished ? "true" : "false";
  key(out, "outcome");
  write_opt(out, c.outcome);
  key(out, "result");
  json::write(out, c.result);
  key(out, "submachine");
  out += c.submachine ? "true" : "false";
  key(out, "key");
  json::write_string(out, c.key);
  write_extra(out, c.extra);
}

template <class V, class F>
void write_map(std::string& out, const OrderedMap<V>& m, F&& write_value) {
  out += '{';
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ',';
    first = false;
    json::write_string(out, k);
    out += ':';
    write_value(v);
  }
  out += '}';
}

}  // namespace

// ---------------------------------------------------------------- public

void write_json(std::string& out, const Event& ev) {
  out += '{';
  key(out, "id", true);
  json::write_string(out, ev.id);
  key(out, "kind");
  json::write_string(out, ev.kind);
  key(out, "created_time");
  write_opt(out, ev.created_time);
  key(out, "received_time");
  write_opt(out, ev.received_time);
  key(out, "data");
  json::write(out, ev.data);
  write_extra(out, ev.extra);
  out += '}';
}

void write_json(std::string& out, const Execution& e) { write_json(out, e, e.version); }

void write_json(std::string& out, const Execution& e, std::int64_t version) {
  out += '{';
  key(out, "id", true);
  json::write_string(out, e.id);
  key(out, "definition_id");
  json::write_string(out, e.definition_id);
  key(out, "definition_fqn");
  write_opt(out, e.definition_fqn);
  key(out, "root_path");
  json::write_string(out, e.root_path);
  key(out, "status");
  json::write_string(out, to_string(e.status));
  key(out, "outcome");
  write_opt(out, e.outcome);
  key(out, "error");
  write_opt(out, e.error);
  key(out, "active_path");
  write_opt(out, e.active_path);
  key(out, "history");
  write_map(out, e.history, [&](const std::string& v) { json::write_string(out, v); });
  key(out, "context");
  json::write(out, e.context);
  key(out, "processed_events");
  out += std::to_string(e.processed_events);
  key(out, "version");
  out += std::to_string(version);
  key(out, "priority");
  out += std::to_string(e.priority);
  key(out, "parent_id");
  write_opt(out, e.parent_id);
  key(out, "child_id");
  write_opt(out, e.child_id);
  key(out, "deferred");
  out += '[';
  for (std::size_t i = 0; i < e.deferred.size(); ++i) {
    if (i) out += ',';
    write_json(out, e.deferred[i]);
  }
  out += ']';
  key(out, "children");
  write_map(out, e.children, [&](const ChildState& c) {
    out += '{';
    write_child(out, c);
    out += '}';
  });
  key(out, "invoke_seq");
  write_map(out, e.invoke_seq, [&](std::int64_t n) { out += std::to_string(n); });
  write_extra(out, e.extra);
  out += '}';
}

std::string to_json(const Execution& exe) { return to_json(exe, exe.version); }

std::string to_json(const Execution& exe, std::int64_t version) {
  std::string out;
  out.reserve(512);
  write_json(out, exe, version);
  return out;
}

std::string to_json(const Event& ev) {
  std::string out;
  write_json(out, ev);
  return out;
}

bj::object parse_object(std::string_view text, std::string_view what) {
  boost::system::error_code ec;
  bj::value v = json::parse(text, ec);
  if (ec) throw DecodeError("", "not valid JSON (" + ec.message() + ")");
  if (!v.is_object()) throw DecodeError(std::string(what), "expected a JSON object");
  return std::move(v.get_object());
}

ExecutionSummary ExecutionSummary::of(const Execution& e) {
  return {e.id, e.definition_id, e.status, e.outcome, e.active_path, e.parent_id, e.root_path, e.priority, e.version};
}

ExecutionSummary ExecutionSummary::of(Execution&& e) {
  return {std::move(e.id),          std::move(e.definition_id), e.status,
          std::move(e.outcome),     std::move(e.active_path),   std::move(e.parent_id),
          std::move(e.root_path),   e.priority,                 e.version};
}

bj::object to_json_object(const ExecutionSummary& s) {
  auto opt = [](const std::optional<std::string>& o) { return o ? bj::value(*o) : bj::value(nullptr); };
  return {{"id", s.id},
          {"definition_id", s.definition_id},
          {"status", to_string(s.status)},
          {"outcome", opt(s.outcome)},
          {"active_path", opt(s.active_path)},
          {"parent_id", opt(s.parent_id)},
          {"root_path", s.root_path},
          {"priority", s.priority},
          {"version", s.version}};
}

}  // namespace harel
