#include "harel/runtime/actions.h"

#include "harel/errors.h"

namespace harel::runtime {
namespace {

namespace bj = boost::json;

void merge(bj::object& into, const bj::object& from) {
  for (const auto& kv : from) into[kv.key()] = kv.value();
}

void check_only(const bj::object& args, std::initializer_list<std::string_view> allowed, std::string_view action) {
  for (const auto& kv : args) {
    bool known = false;
    for (auto a : allowed) known = known || kv.key() == a;
    if (!known) throw InvalidArgument("action '" + std::string(action) + "': unknown arg '" + std::string(kv.key()) + "'");
  }
}

void increment(ActionContext& ctx) {
  const bj::string& field = ctx.args.at("field").as_string();
  const bj::value* by = ctx.args.if_contains("by");
  const bj::value* current = ctx.context.if_contains(field);
  if (current && !current->is_number() && !current->is_null())
    throw InvalidArgument("increment: context field '" + std::string(field) + "' is not a number");
  const bool integral = (!by || by->is_int64()) && (!current || current->is_null() || current->is_int64());
  if (integral) {
    const std::int64_t base = current && current->is_int64() ? current->as_int64() : 0;
    ctx.context[field] = base + (by ? by->as_int64() : 1);
  } else {
    const double base = current && current->is_number() ? current->to_number<double>() : 0.0;
    ctx.context[field] = base + (by ? by->to_number<double>() : 1.0);
  }
}

void check_increment(const bj::object& args) {
  check_only(args, {"field", "by"}, "increment");
  const bj::value* field = args.if_contains("field");
  if (!field || !field->is_string() || field->as_string().empty())
    throw InvalidArgument("action 'increment': \"field\" must be a non-empty string");
  if (const bj::value* by = args.if_contains("by"); by && !by->is_number())
    throw InvalidArgument("action 'increment': \"by\" must be a number");
}

void emit(ActionContext& ctx) {
  std::optional<std::string> target;
  if (const bj::value* t = ctx.args.if_contains("target"); t && t->is_string()) {
    target = std::string(t->as_string());
    if (*target == "$parent") {
      if (!ctx.execution.parent_id)
        throw InvalidArgument("emit: target \"$parent\" but execution '" + ctx.execution.id + "' has no parent");
      target = ctx.execution.parent_id;
    }
  }
  bj::object data;
  if (const bj::value* d = ctx.args.if_contains("data")) data = d->as_object();
  if (const bj::value* copy = ctx.args.if_contains("copy")) {
    for (const bj::value& field : copy->as_array()) {
      const bj::value* v = ctx.context.if_contains(field.as_string());
      data[field.as_string()] = v ? *v : bj::value();
    }
  }
  ctx.emit(std::move(target), std::string(ctx.args.at("kind").as_string()), std::move(data));
}

void check_emit(const bj::object& args) {
  check_only(args, {"target", "kind", "data", "copy"}, "emit");
  const bj::value* kind = args.if_contains("kind");
  if (!kind || !kind->is_string() || kind->as_string().empty())
    throw InvalidArgument("action 'emit': \"kind\" must be a non-empty string");
  if (const bj::value* t = args.if_contains("target"); t && !t->is_string() && !t->is_null())
    throw InvalidArgument("action 'emit': \"target\" must be an execution id, \"$parent\" or null");
  if (const bj::value* d = args.if_contains("data"); d && !d->is_object())
    throw InvalidArgument("action 'emit': \"data\" must be an object");
  if (const bj::value* copy = args.if_contains("copy")) {
    if (!copy->is_array()) throw InvalidArgument("action 'emit': \"copy\" must be an array of field names");
    for (const bj::value& f : copy->as_array())
      if (!f.is_string()) throw InvalidArgument("action 'emit': \"copy\" must be an array of field names");
  }
}

}  // namespace

void ActionContext::emit(std::optional<std::string> target_id, std::string kind, boost::json::object data) {
  Event ev;
  ev.id = std::string(emit_id_prefix) + std::to_string(emits.size());
  ev.kind = std::move(kind);
  ev.data = std::move(data);
  emits.push_back(Emit{std::move(target_id), std::move(ev)});
}

void ActionRegistry::add(std::string name, Action action, ArgsCheck check) {
  entries_.insert_or_assign(std::move(name), Entry{std::move(action), std::move(check)});
}

const Action* ActionRegistry::find(std::string_view name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second.action;
}

void ActionRegistry::check_args(std::string_view name, const boost::json::object& args) const {
  auto it = entries_.find(name);
  if (it != entries_.end() && it->second.check) it->second.check(args);
}

ActionRegistry builtin_actions() {
  ActionRegistry r;
  r.add("assign", [](ActionContext& ctx) { merge(ctx.context, ctx.args); });
  r.add("increment", increment, check_increment);
  r.add("merge_event_data", [](ActionContext& ctx) { merge(ctx.context, ctx.event.data); },
        [](const bj::object& args) { check_only(args, {}, "merge_event_data"); });
  r.add("emit", emit, check_emit);
  return r;
}

}  // namespace harel::runtime
