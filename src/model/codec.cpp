#include "harel/model/codec.h"

#include <boost/json/parse.hpp>

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

// ---------------------------------------------------------------- reading

std::string join(std::string_view where, std::string_view field) {
  if (where.empty()) return std::string(field);
  return std::string(where) + "." + std::string(field);
}

[[noreturn]] void fail(std::string_view where, std::string_view field, const std::string& what) {
  throw DecodeError(join(where, field), what);
}

bj::object& as_object(bj::value& v, std::string_view where) {
  if (!v.is_object()) throw DecodeError(std::string(where), "expected a JSON object");
  return v.get_object();
}

// Reads the fields of one JSON object, remembering which it consumed (by
// position, so keeping the rest is one pass) so the rest can be kept as
// `extra`. Objects and values are moved out of the document, not copied: it
// was parsed for this decoding only.
class Fields {
 public:
  Fields(bj::object& obj, std::string_view where) : obj_(obj), where_(where), consumed_(obj.size(), false) {}

  bj::value* find(std::string_view name) {
    auto it = obj_.find(name);
    if (it == obj_.end()) return nullptr;
    consumed_[static_cast<std::size_t>(it - obj_.begin())] = true;
    return &it->value();
  }

  std::string string(std::string_view name, bool required, std::string fallback = {}) {
    const bj::value* v = find(name);
    if (!v) {
      if (required) fail(where_, name, "missing");
      return fallback;
    }
    if (!v->is_string()) fail(where_, name, "expected a string");
    return std::string(v->get_string());
  }

  std::optional<std::string> opt_string(std::string_view name) {
    const bj::value* v = find(name);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_string()) fail(where_, name, "expected a string or null");
    return std::string(v->get_string());
  }

  bool boolean(std::string_view name) {
    const bj::value* v = find(name);
    if (!v) return false;
    if (!v->is_bool()) fail(where_, name, "expected true or false");
    return v->get_bool();
  }

  std::int64_t integer(std::string_view name) {
    const bj::value* v = find(name);
    if (!v) return 0;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
      return static_cast<std::int64_t>(v->get_uint64());
    fail(where_, name, "expected an integer");
  }

  bj::object object(std::string_view name) {
    bj::value* v = find(name);
    if (!v) return {};
    if (!v->is_object()) fail(where_, name, "expected an object");
    return std::move(v->get_object());
  }

  bj::array* array(std::string_view name) {
    bj::value* v = find(name);
    if (!v) return nullptr;
    if (!v->is_array()) fail(where_, name, "expected an array");
    return &v->get_array();
  }

  std::string_view where() const { return where_; }

  // Everything not read above, in document order.
  bj::object rest() {
    bj::object extra;
    for (std::size_t i = 0; i < obj_.size(); ++i) {
      if (consumed_[i]) continue;
      auto& kv = obj_.begin()[i];
      extra.emplace(kv.key(), std::move(kv.value()));
    }
    return extra;
  }

 private:
  bj::object& obj_;
  std::string where_;
  std::vector<bool> consumed_;  // by position in obj_, which is not modified
};

ChildState take_child(bj::value& v, std::string_view where) {
  Fields f(as_object(v, where), where);
  ChildState c;
  c.root_path = f.string("root_path", false);
  c.finished = f.boolean("finished");
  c.outcome = f.opt_string("outcome");
  if (bj::value* r = f.find("result")) c.result = std::move(*r);
  c.submachine = f.boolean("submachine");
  c.key = f.string("key", false);
  c.extra = f.rest();
  return c;
}

bj::value parse_text(std::string_view text) {
  boost::system::error_code ec;
  bj::value v = json::parse(text, ec);
  if (ec) throw DecodeError("", "not valid JSON (" + ec.message() + ")");
  return v;
}

// The decoders proper: they take their parts out of `v`, leaving it gutted.
Event take_event(bj::value& v, std::string_view where) {
  Fields f(as_object(v, where), where);
  Event ev;
  ev.id = f.string("id", true);
  ev.kind = f.string("kind", true);
  ev.created_time = f.opt_string("created_time");
  ev.received_time = f.opt_string("received_time");
  ev.data = f.object("data");
  ev.extra = f.rest();
  return ev;
}

Execution take_execution(bj::value& v) {
  Fields f(as_object(v, ""), "");
  Execution e;
  e.id = f.string("id", true);
  e.definition_id = f.string("definition_id", true);
  e.definition_fqn = f.opt_string("definition_fqn");
  e.root_path = f.string("root_path", false);
  if (const bj::value* s = f.find("status")) {
    if (!s->is_string()) fail("", "status", "expected a string");
    auto status = parse_status(s->get_string());
    if (!status) fail("", "status", "unknown status '" + std::string(s->get_string()) + "'");
    e.status = *status;
  }
  e.outcome = f.opt_string("outcome");
  e.error = f.opt_string("error");
  e.active_path = f.opt_string("active_path");
  for (const auto& kv : f.object("history")) {
    if (!kv.value().is_string()) fail("history", kv.key(), "expected a string");
    e.history.insert_or_assign(kv.key(), std::string(kv.value().get_string()));
  }
  e.context = f.object("context");
  e.processed_events = f.integer("processed_events");
  e.version = f.integer("version");
  if (e.version < 0) fail("", "version", "must not be negative");
  const std::int64_t priority = f.integer("priority");
  if (priority < 0 || priority > 4) fail("", "priority", "must be 0..4");
  e.priority = static_cast<int>(priority);
  e.parent_id = f.opt_string("parent_id");
  e.child_id = f.opt_string("child_id");
  if (bj::array* deferred = f.array("deferred")) {
    for (std::size_t i = 0; i < deferred->size(); ++i)
      e.deferred.push_back(take_event((*deferred)[i], "deferred[" + std::to_string(i) + "]"));
  }
  for (auto& kv : f.object("children"))
    e.children.insert_or_assign(kv.key(), take_child(kv.value(), join("children", kv.key())));
  for (const auto& kv : f.object("invoke_seq")) {
    if (!kv.value().is_int64()) fail("invoke_seq", kv.key(), "expected an integer");
    e.invoke_seq.insert_or_assign(kv.key(), kv.value().get_int64());
  }
  e.extra = f.rest();
  return e;
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

Event event_from_json(const bj::value& v, std::string_view where) {
  bj::value copy = v;
  return take_event(copy, where);
}

Execution execution_from_json(const bj::value& v) {
  bj::value copy = v;
  return take_execution(copy);
}

Execution parse_execution(std::string_view text) {
  bj::value v = parse_text(text);
  return take_execution(v);
}

Event parse_event(std::string_view text) {
  bj::value v = parse_text(text);
  return take_event(v, "");
}

bj::object parse_object(std::string_view text, std::string_view what) {
  bj::value v = parse_text(text);
  if (!v.is_object()) throw DecodeError(std::string(what), "expected a JSON object");
  return std::move(v.get_object());
}

ExecutionSummary ExecutionSummary::of(const Execution& e) {
  return {e.id, e.definition_id, e.status, e.outcome, e.active_path, e.parent_id, e.root_path, e.priority, e.version};
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
