#include "store/dynamodb/operations.h"

#include <algorithm>
#include <charconv>

#include <boost/json/parse.hpp>

#include "harel/dynamodb/attribute_value.h"
#include "harel/dynamodb/errors.h"
#include "harel/errors.h"
#include "harel/json/write.h"
#include "harel/model/codec.h"
#include "store/listing.h"
#include "store/trace_ring.h"
#include "store/validate.h"
#include "util/base64.h"

namespace harel::store::dynamodb {

namespace bj = boost::json;
namespace av = harel::dynamodb::av;
using harel::dynamodb::DynamoError;

namespace {

// ------------------------------------------------------------------ names & numbers

bool legal_table_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

// Numbers the reference writes through Python's str(float) → Decimal: repr form.
bj::value epoch_number(EpochSeconds t) {
  std::string text;
  json::write_double(text, t, json::Style::Python);
  return av::N(text);
}

EpochSeconds parse_epoch(std::string_view text, std::string_view field) {
  double d = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw DecodeError(std::string(field), "not a number: '" + std::string(text) + "'");
  return d;
}

std::string python_json(const bj::object& o) { return json::to_string(o, json::Style::Python); }

// ------------------------------------------------------------------ requests

void add_members(bj::object&) {}

template <class Value, class... Rest>
void add_members(bj::object& o, std::string_view name, Value&& value, Rest&&... rest) {
  o.emplace(name, std::forward<Value>(value));
  add_members(o, std::forward<Rest>(rest)...);
}

// {name: value, ...} from alternating names and values, moving the values
// in. Boost.JSON's initializer lists copy every nested value (value_ref),
// which for a commit would copy the execution's JSON once per nesting level.
template <class... NamesAndValues>
bj::object object_of(NamesAndValues&&... members) {
  static_assert(sizeof...(members) % 2 == 0, "names and values alternate");
  bj::object o;
  o.reserve(sizeof...(members) / 2);
  add_members(o, std::forward<NamesAndValues>(members)...);
  return o;
}

bj::object execution_key(std::string_view id) { return object_of("id", av::S(id)); }

bj::object processed_key(std::string_view execution_id, std::string_view event_id) {
  return object_of("execution_id", av::S(execution_id), "event_id", av::S(event_id));
}

bj::object timer_key(std::string_view execution_id, std::string_view path) {
  return object_of("execution_id", av::S(execution_id), "path", av::S(path));
}

bj::object trace_key(std::string_view execution_id, std::int64_t idx) {
  return object_of("execution_id", av::S(execution_id), "idx", av::N(idx));
}

// The `data` projection: `data` is a DynamoDB reserved word, hence the alias.
void project_data(bj::object& request) {
  request["ProjectionExpression"] = "#d";
  request["ExpressionAttributeNames"] = {{"#d", "data"}};
}

bj::object get_item(const std::string& table, bj::object key, bool consistent) {
  bj::object request = object_of("TableName", table, "Key", std::move(key));
  if (consistent) request["ConsistentRead"] = true;
  return request;
}

// _next_seq: reserve `count` ids with one atomic ADD; returns the first.
DynamoCall reserve_seqs(const TableNames& t, std::string_view counter, std::size_t count) {
  return {"UpdateItem",
          {{"TableName", t.counters},
           {"Key", execution_key(counter)},
           {"UpdateExpression", "ADD n :k"},
           {"ExpressionAttributeValues", {{":k", av::N(count)}}},
           {"ReturnValues", "UPDATED_NEW"}}};
}

std::int64_t first_reserved_seq(const bj::value& response, std::size_t count) {
  const auto& attributes = response.as_object().at("Attributes").as_object();
  return av::get_int(attributes, "n") - static_cast<std::int64_t>(count) + 1;
}

// _max_trace_idx: the newest index of an execution's trace, -1 if none.
DynamoCall max_trace_index_query(const TableNames& t, std::string_view execution_id) {
  return {"Query",
          {{"TableName", t.trace},
           {"KeyConditionExpression", "execution_id = :e"},
           {"ExpressionAttributeValues", {{":e", av::S(execution_id)}}},
           {"ProjectionExpression", "idx"},
           {"ScanIndexForward", false},
           {"Limit", 1}}};
}

std::int64_t max_trace_index(const bj::value& response) {
  const bj::value* items = response.as_object().if_contains("Items");
  if (!items || items->as_array().empty()) return -1;
  return av::get_int(items->as_array()[0].as_object(), "idx");
}

bj::object put(const std::string& table, bj::object item) {
  return object_of("Put", object_of("TableName", table, "Item", std::move(item)));
}

bj::object del(const std::string& table, bj::object key) {
  return object_of("Delete", object_of("TableName", table, "Key", std::move(key)));
}

const bj::object* find_item(const bj::value& response) {
  const bj::value* item = response.as_object().if_contains("Item");
  return item ? &item->as_object() : nullptr;
}

// ------------------------------------------------------------------ limits

// DynamoDB's item size: attribute names plus values — string bytes; numbers
// about one byte per two digits plus one, so digits + 1 is a safe bound (a
// one-digit number counts 2); NULL and BOOL one byte.
std::size_t item_size(const bj::object& item) {
  std::size_t size = 0;
  for (const auto& kv : item) {
    size += kv.key().size();
    for (const auto& typed : kv.value().as_object()) {
      const bj::string* text = typed.value().if_string();
      size += text ? text->size() + (typed.key() == "N" ? 1 : 0) : 1;
    }
  }
  return size;
}

const bj::object& transaction_item_body(const bj::object& txn_item) {
  const auto& op = *txn_item.begin();
  const bj::object& body = op.value().as_object();
  return body.contains("Item") ? body.at("Item").as_object() : body.at("Key").as_object();
}

void check_transaction_limits(const Execution& exe, const bj::array& items) {
  const std::string where = "execution '" + exe.id + "': ";
  if (items.size() > kMaxTransactionItems)
    throw InvalidArgument(where + "commit needs " + std::to_string(items.size()) +
                          " transaction items; DynamoDB allows at most " + std::to_string(kMaxTransactionItems) +
                          " (nothing was written)");
  std::size_t total = 0;
  for (const auto& txn_item : items) {
    const std::size_t size = item_size(transaction_item_body(txn_item.as_object()));
    if (size > kMaxItemBytes)
      throw InvalidArgument(where + "an item of the commit is " + std::to_string(size) +
                            " bytes; DynamoDB's item size limit is " + std::to_string(kMaxItemBytes) +
                            " bytes (400 KB) (nothing was written)");
    total += size;
  }
  if (total > kMaxTransactionBytes)
    throw InvalidArgument(where + "commit is " + std::to_string(total) + " bytes; DynamoDB's transaction limit is " +
                          std::to_string(kMaxTransactionBytes) + " bytes (4 MB) (nothing was written)");
}

// Timer ops on one path collapse to the last (a transaction may not touch one
// item twice); applying them in order would end in the same state.
std::vector<const TimerOp*> last_op_per_path(const std::vector<TimerOp>& ops) {
  std::vector<const TimerOp*> out;
  for (const TimerOp& op : ops) {
    auto same = std::find_if(out.begin(), out.end(), [&](const TimerOp* o) { return o->path == op.path; });
    if (same != out.end())
      *same = &op;
    else
      out.push_back(&op);
  }
  return out;
}

// The DynamoDB error code of a failed Attempt; "" for any other failure.
std::string service_error_code(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const DynamoError& e) {
    return e.code();
  } catch (...) {
    return {};
  }
}

// Whether a cancelled transaction's CancellationReasons (when the server
// sends them) name a failed condition at item `slot` and nowhere else.
bool only_condition_failed_at(const std::exception_ptr& error, std::size_t slot) {
  try {
    std::rethrow_exception(error);
  } catch (const DynamoError& e) {
    const bj::value* reasons = e.body().if_contains("CancellationReasons");
    if (!reasons || !reasons->is_array() || reasons->as_array().size() <= slot) return false;
    const bj::array& list = reasons->as_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const bj::value* code = list[i].is_object() ? list[i].as_object().if_contains("Code") : nullptr;
      const bool failed = code && code->is_string() && code->as_string() == "ConditionalCheckFailed";
      if (failed != (i == slot)) return false;
    }
    return true;
  } catch (...) {
    return false;
  }
}

// An Attempt's failure whose code is not one of `expected` is re-raised.
void rethrow_unless(const Outcome& outcome, std::initializer_list<std::string_view> expected) {
  if (!outcome.error) return;
  const std::string code = service_error_code(outcome.error);
  if (std::find(expected.begin(), expected.end(), code) == expected.end()) std::rethrow_exception(outcome.error);
}

// ------------------------------------------------------------------ decoding

template <class F>
auto decode_or_corrupt(const std::string& table, const std::string& key, F&& decode) {
  try {
    return decode();
  } catch (const DecodeError& e) {
    throw CorruptRecord(table, key, e.what());
  } catch (const std::exception& e) {  // a wrong JSON kind in the item (as_object on a string, ...)
    throw CorruptRecord(table, key, e.what());
  }
}

Execution execution_from_item(const std::string& table, std::string_view id, const bj::object& item) {
  return decode_or_corrupt(table, std::string(id), [&] { return parse_execution(av::get_S(item, "data")); });
}

std::string key_text(const bj::object& item, std::string_view name) {
  const bj::value* v = av::find(item, name);
  if (!v) return "?";
  try {
    return std::string(v->as_object().begin()->value().as_string());
  } catch (const std::exception&) {
    return "?";
  }
}

// list_executions' cursor: base64url of the LastEvaluatedKey's JSON, as the
// reference writes it (padded, Python json.dumps), so cursors interchange.
std::string encode_cursor(const bj::object& last_evaluated_key) {
  std::string cursor = util::base64url_encode(python_json(last_evaluated_key));
  cursor.append((4 - cursor.size() % 4) % 4, '=');
  return cursor;
}

bj::object decode_cursor(std::string_view cursor) {
  const auto text = util::base64url_decode(cursor);
  if (!text) throw InvalidCursor("cursor is not base64url");
  boost::system::error_code ec;
  bj::value v = bj::parse(*text, ec);
  // The executions table's key is exactly {"id": {"S": "..."}}.
  const bj::object* key = ec ? nullptr : v.if_object();
  const bj::value* id = key && key->size() == 1 ? key->if_contains("id") : nullptr;
  const bj::object* typed = id ? id->if_object() : nullptr;
  const bj::value* s = typed && typed->size() == 1 ? typed->if_contains("S") : nullptr;
  if (!s || !s->is_string() || s->get_string().empty()) throw InvalidCursor("cursor was not produced by this store");
  return std::move(v.get_object());
}

}  // namespace

// ------------------------------------------------------------------ tables

TableNames::TableNames(std::string_view p) : prefix(p) {
  if (prefix.empty()) throw InvalidArgument("DynamoDB table prefix must not be empty");
  if (!std::all_of(prefix.begin(), prefix.end(), legal_table_char))
    throw InvalidArgument("DynamoDB table prefix '" + prefix +
                          "' may only contain letters, digits, '_', '.' and '-' (table names are '{prefix}_{name}')");
  if (prefix.size() + std::string_view("_executions").size() > 255)
    throw InvalidArgument("DynamoDB table prefix is " + std::to_string(prefix.size()) +
                          " characters; table names are limited to 255");
  executions = prefix + "_executions";
  outbox = prefix + "_outbox";
  spawns = prefix + "_spawns";
  timers = prefix + "_timers";
  processed = prefix + "_processed";
  counters = prefix + "_counters";
  trace = prefix + "_trace";
}

CallSequence<Done> Operations::ensure_tables() const {
  struct Spec {
    const std::string& table;
    std::vector<std::pair<const char*, const char*>> keys;  // (name, type); HASH then RANGE
  };
  const Spec specs[] = {
      {tables_.executions, {{"id", "S"}}},
      {tables_.outbox, {{"seq", "N"}}},
      {tables_.spawns, {{"seq", "N"}}},
      {tables_.timers, {{"execution_id", "S"}, {"path", "S"}}},
      {tables_.processed, {{"execution_id", "S"}, {"event_id", "S"}}},
      {tables_.counters, {{"id", "S"}}},
      {tables_.trace, {{"execution_id", "S"}, {"idx", "N"}}},
  };
  const char* roles[] = {"HASH", "RANGE"};
  for (const Spec& spec : specs) {
    bj::array key_schema, definitions;
    for (std::size_t i = 0; i < spec.keys.size(); ++i) {
      key_schema.push_back(bj::object{{"AttributeName", spec.keys[i].first}, {"KeyType", roles[i]}});
      definitions.push_back(bj::object{{"AttributeName", spec.keys[i].first}, {"AttributeType", spec.keys[i].second}});
    }
    Attempt create{{"CreateTable",
                    {{"TableName", spec.table},
                     {"KeySchema", std::move(key_schema)},
                     {"AttributeDefinitions", std::move(definitions)},
                     {"BillingMode", "PAY_PER_REQUEST"}}}};
    const Outcome created = co_await create;
    rethrow_unless(created, {"ResourceInUseException"});  // already exists is fine; anything else is real
  }
  // A new table is CREATING for a few seconds on AWS (at once ACTIVE locally).
  for (const Spec& spec : specs) {
    for (int attempt = 0;; ++attempt) {
      DynamoCall describe{"DescribeTable", {{"TableName", spec.table}}};
      const bj::value d = co_await describe;
      if (d.at("Table").at("TableStatus") == "ACTIVE") break;
      if (attempt == 300) throw BackendError("dynamodb", "TableNotActive", "table '" + spec.table + "' never became ACTIVE");
      co_await Delay{std::chrono::milliseconds(200)};
    }
  }
  co_return Done{};
}

CallSequence<std::optional<Execution>> Operations::load(std::string_view execution_id) const {
  check_id(execution_id, "execution id");
  bj::object request = get_item(tables_.executions, execution_key(execution_id), consistent_);
  project_data(request);
  DynamoCall get{"GetItem", std::move(request)};
  const bj::value response = co_await get;
  const bj::object* item = find_item(response);
  if (!item) co_return std::nullopt;
  co_return execution_from_item(tables_.executions, execution_id, *item);
}

CallSequence<LoadForEvent> Operations::load_for_event(std::string_view execution_id, std::string_view event_id) const {
  check_id(execution_id, "execution id");
  check_id(event_id, "event id");
  // One BatchGetItem across both tables: the worker's hot path in one round trip.
  bj::object executions{{"Keys", bj::array{execution_key(execution_id)}}};
  project_data(executions);
  bj::object processed{{"Keys", bj::array{processed_key(execution_id, event_id)}}};
  if (consistent_) executions["ConsistentRead"] = processed["ConsistentRead"] = true;
  bj::object request_items{{tables_.executions, std::move(executions)}, {tables_.processed, std::move(processed)}};

  LoadForEvent out;
  for (int attempt = 0;; ++attempt) {
    DynamoCall batch_get{"BatchGetItem", {{"RequestItems", request_items}}};
    bj::value response = co_await batch_get;
    bj::object& body = response.as_object();
    if (const bj::value* responses = body.if_contains("Responses")) {
      const bj::object& by_table = responses->as_object();
      if (const bj::value* items = by_table.if_contains(tables_.executions); items && !items->as_array().empty())
        out.execution = execution_from_item(tables_.executions, execution_id, items->as_array()[0].as_object());
      if (const bj::value* items = by_table.if_contains(tables_.processed); items && !items->as_array().empty())
        out.already_processed = true;
    }
    // Keys DynamoDB did not get to (throttling) are asked for again, with backoff.
    const bj::value* unprocessed = body.if_contains("UnprocessedKeys");
    if (!unprocessed || unprocessed->as_object().empty()) break;
    if (attempt == 8)
      throw BackendError("dynamodb", "UnprocessedKeys",
                         "BatchGetItem left keys unprocessed for execution '" + std::string(execution_id) + "'");
    request_items = unprocessed->as_object();
    co_await Delay{std::chrono::milliseconds(25 << attempt)};
  }
  co_return out;
}

CallSequence<ExecutionPage> Operations::list_executions(const ListQuery& query) const {
  check_query(query);
  bj::object request{{"TableName", tables_.executions},
                     {"ProjectionExpression", "#dat,#v,id"},  // id: to name a corrupt item
                     {"ExpressionAttributeNames", {{"#dat", "data"}, {"#v", "version"}}},
                     {"Limit", query.limit}};
  if (query.definition_id) {
    // definition_id is a broken-out attribute: filter server-side.
    request["ExpressionAttributeNames"].as_object()["#def"] = "definition_id";
    request["FilterExpression"] = "#def = :def";
    request["ExpressionAttributeValues"] = {{":def", av::S(*query.definition_id)}};
  }
  if (query.cursor) request["ExclusiveStartKey"] = decode_cursor(*query.cursor);

  DynamoCall scan{"Scan", std::move(request)};
  const bj::value response = co_await scan;
  ExecutionPage page;
  // status / roots_only live inside `data`: filtered here, so a page may hold
  // fewer than `limit` items while more remain.
  if (const bj::value* items = response.as_object().if_contains("Items")) {
    for (const bj::value& raw : items->as_array()) {
      const bj::object& item = raw.as_object();
      const std::string id = key_text(item, "id");
      ExecutionSummary s = decode_or_corrupt(tables_.executions, id, [&] {
        return parse_execution_summary(av::get_S(item, "data"));
      });
      if (matches(query, s)) page.items.push_back(std::move(s));
    }
  }
  if (const bj::value* lek = response.as_object().if_contains("LastEvaluatedKey"))
    page.next_cursor = encode_cursor(lek->as_object());
  co_return page;
}

CallSequence<CommitReceipt> Operations::commit(const Execution& exe, const Effects& effects,
                                              std::int64_t trace_max) const {
  check_commit(exe, effects);
  const std::int64_t old_version = exe.version;
  const std::int64_t new_version = old_version + 1;

  // The Execution Put carrying the CAS, always the transaction's first item.
  bj::array txn;
  {
    bj::object put_exe = object_of("TableName", tables_.executions, "Item",
                                   object_of("id", av::S(exe.id),
                                             // the stored JSON carries the committed version
                                             "data", av::S(to_json(exe, new_version)), "version", av::N(new_version),
                                             "definition_id", av::S(exe.definition_id)));
    if (old_version == 0) {
      put_exe["ConditionExpression"] = "attribute_not_exists(id)";
    } else {
      put_exe["ConditionExpression"] = "version = :ov";
      put_exe["ExpressionAttributeValues"] = object_of(":ov", av::N(old_version));
    }
    txn.push_back(object_of("Put", std::move(put_exe)));
  }
  // Outbox and spawn items get their seqs after the limits check; 0 holds the place.
  const std::size_t first_outbox = txn.size();
  for (const Emit& emit : effects.emits)
    txn.push_back(put(tables_.outbox, object_of("seq", av::N(0), "target_id",
                                                emit.target_id ? av::S(*emit.target_id) : av::Null(), "event",
                                                av::S(to_json(emit.event)))));
  const std::size_t first_spawn = txn.size();
  for (const SpawnRequest& spawn : effects.spawns)
    txn.push_back(put(tables_.spawns, object_of("seq", av::N(0), "parent_id", av::S(exe.id), "child_id",
                                                av::S(spawn.child_id), "root_path", av::S(spawn.root_path),
                                                "context", av::S(python_json(spawn.context)))));
  // The dedupe mark is conditional: a BatchGetItem (load_for_event) is not
  // isolated from transactions, so two workers can both see an event as new;
  // the condition makes the second commit fail instead of applying it twice.
  const std::size_t processed_slot = txn.size();
  if (effects.processed_event_id) {
    bj::object mark = put(tables_.processed, processed_key(exe.id, *effects.processed_event_id));
    mark["Put"].as_object()["ConditionExpression"] = "attribute_not_exists(event_id)";
    txn.push_back(std::move(mark));
  }
  for (const TimerOp* op : last_op_per_path(effects.timers)) {
    if (op->action == TimerOp::Action::Schedule) {
      bj::object item = timer_key(exe.id, op->path);
      item.emplace("fire_at", epoch_number(op->fire_at));
      txn.push_back(put(tables_.timers, std::move(item)));
    } else {
      txn.push_back(del(tables_.timers, timer_key(exe.id, op->path)));
    }
  }
  const bool traced = effects.trace.has_value();
  const std::size_t trace_slot = txn.size();
  if (traced) {
    bj::object item = trace_key(exe.id, 0);
    item.emplace("entry", av::S(python_json(*effects.trace)));
    txn.push_back(put(tables_.trace, std::move(item)));
    if (trace_max > 0) txn.push_back(del(tables_.trace, trace_key(exe.id, 0)));  // the ring's drop, if due
  }
  check_transaction_limits(exe, txn);

  // Seqs are reserved before the transaction (a transaction cannot read its
  // own counter); a block wasted by a cancelled commit is harmless.
  auto set_item_number = [&](std::size_t slot, std::string_view attribute, std::int64_t n) {
    txn[slot].as_object().begin()->value().as_object()["Item"].as_object()[attribute] = av::N(n);
  };
  CommitReceipt receipt;
  if (!effects.emits.empty()) {
    DynamoCall reserve = reserve_seqs(tables_, "outbox", effects.emits.size());
    const bj::value r = co_await reserve;
    const std::int64_t base = first_reserved_seq(r, effects.emits.size());
    receipt.first_outbox_seq = base;
    for (std::size_t i = 0; i < effects.emits.size(); ++i)
      set_item_number(first_outbox + i, "seq", base + static_cast<std::int64_t>(i));
  }
  if (!effects.spawns.empty()) {
    DynamoCall reserve = reserve_seqs(tables_, "spawn", effects.spawns.size());
    const bj::value r = co_await reserve;
    const std::int64_t base = first_reserved_seq(r, effects.spawns.size());
    receipt.first_spawn_seq = base;
    for (std::size_t i = 0; i < effects.spawns.size(); ++i)
      set_item_number(first_spawn + i, "seq", base + static_cast<std::int64_t>(i));
  }
  if (traced) {
    // The index comes from the stored ring (max + 1), not a counter, so a
    // cancelled commit leaves no gap. Single writer per execution makes the
    // read-then-write safe.
    DynamoCall query = max_trace_index_query(tables_, exe.id);
    const std::int64_t idx = max_trace_index(co_await query) + 1;
    set_item_number(trace_slot, "idx", idx);
    if (trace_max > 0) {
      if (auto drop = trace_index_to_drop(idx, trace_max))
        txn[trace_slot + 1].as_object()["Delete"].as_object()["Key"] = trace_key(exe.id, *drop);
      else
        txn.erase(txn.begin() + static_cast<std::ptrdiff_t>(trace_slot) + 1);  // window not full yet
    }
  }

  Attempt transact{{"TransactWriteItems", object_of("TransactItems", std::move(txn))}};
  const Outcome written = co_await transact;
  // TransactionCanceledException: a condition in the transaction failed;
  // ConditionalCheckFailedException: what older moto answers instead.
  // Anything else is a real error, not a CAS miss.
  rethrow_unless(written, {"TransactionCanceledException", "ConditionalCheckFailedException"});
  if (written.error) {
    if (effects.processed_event_id && only_condition_failed_at(written.error, processed_slot))
      throw AlreadyProcessed(exe.id, *effects.processed_event_id, old_version);
    // The whole transaction was cancelled: nothing of it was written.
    bj::object request = get_item(tables_.executions, execution_key(exe.id), consistent_);
    request["ProjectionExpression"] = "version";
    DynamoCall read_back{"GetItem", std::move(request)};
    const bj::value response = co_await read_back;
    const bj::object* item = find_item(response);
    std::optional<std::int64_t> found;
    if (item) found = decode_or_corrupt(tables_.executions, exe.id, [&] { return av::get_int(*item, "version"); });
    throw StoreConflict(exe.id, old_version, found);
  }
  co_return receipt;
}

CallSequence<bool> Operations::is_processed(std::string_view execution_id, std::string_view event_id) const {
  check_id(execution_id, "execution id");
  check_id(event_id, "event id");
  DynamoCall get{"GetItem", get_item(tables_.processed, processed_key(execution_id, event_id), consistent_)};
  const bj::value response = co_await get;
  co_return find_item(response) != nullptr;
}

CallSequence<std::vector<bj::object>> Operations::scan_all(const std::string& table, bj::object request) const {
  // A Scan returns at most 1 MB: follow LastEvaluatedKey to the end.
  request["TableName"] = table;
  std::vector<bj::object> rows;
  for (;;) {
    DynamoCall scan{"Scan", request};
    bj::value response = co_await scan;
    bj::object& body = response.as_object();
    if (bj::value* items = body.if_contains("Items"))
      for (bj::value& item : items->as_array()) rows.push_back(std::move(item.as_object()));
    bj::value* lek = body.if_contains("LastEvaluatedKey");
    if (!lek) break;
    request["ExclusiveStartKey"] = std::move(*lek);
  }
  co_return rows;
}

// Why Scan, not Query, for the relay reads: outbox, spawns and timers are work
// queues that drain and stay near-empty; the relay wants everything pending,
// which needs no index. A stalled relay makes these scans grow.
CallSequence<std::vector<OutboxEntry>> Operations::pending_outbox() const {
  auto scan = scan_all(tables_.outbox, bj::object());
  const std::vector<bj::object> rows = co_await scan;
  std::vector<OutboxEntry> out;
  out.reserve(rows.size());
  for (const bj::object& row : rows) {
    out.push_back(decode_or_corrupt(tables_.outbox, key_text(row, "seq"), [&] {
      const bj::value* target = av::find(row, "target_id");
      return OutboxEntry{av::get_int(row, "seq"),
                         target && !av::is_null(*target) ? std::optional(std::string(av::as_S(*target, "target_id")))
                                                         : std::nullopt,
                         parse_event(av::get_S(row, "event"))};
    }));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });  // Scan is unordered
  co_return out;
}

CallSequence<Done> Operations::ack_outbox(std::int64_t seq) const {
  DynamoCall ack{"DeleteItem", {{"TableName", tables_.outbox}, {"Key", object_of("seq", av::N(seq))}}};
  co_await ack;
  co_return Done{};
}

CallSequence<std::vector<SpawnEntry>> Operations::pending_spawns() const {
  auto scan = scan_all(tables_.spawns, bj::object());
  const std::vector<bj::object> rows = co_await scan;
  std::vector<SpawnEntry> out;
  out.reserve(rows.size());
  for (const bj::object& row : rows) {
    out.push_back(decode_or_corrupt(tables_.spawns, key_text(row, "seq"), [&] {
      return SpawnEntry{av::get_int(row, "seq"), std::string(av::get_S(row, "parent_id")),
                        std::string(av::get_S(row, "child_id")), std::string(av::get_S(row, "root_path")),
                        parse_object(av::get_S(row, "context"), "context")};
    }));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
  co_return out;
}

CallSequence<Done> Operations::ack_spawn(std::int64_t seq) const {
  DynamoCall ack{"DeleteItem", {{"TableName", tables_.spawns}, {"Key", object_of("seq", av::N(seq))}}};
  co_await ack;
  co_return Done{};
}

CallSequence<std::vector<DueTimer>> Operations::due_timers(EpochSeconds now) const {
  bj::object due_filter{{"FilterExpression", "fire_at <= :now"},
                        {"ExpressionAttributeValues", {{":now", epoch_number(now)}}}};
  auto scan = scan_all(tables_.timers, std::move(due_filter));
  const std::vector<bj::object> rows = co_await scan;
  std::vector<DueTimer> out;
  out.reserve(rows.size());
  for (const bj::object& row : rows) {
    out.push_back(decode_or_corrupt(tables_.timers, key_text(row, "execution_id") + "/" + key_text(row, "path"), [&] {
      return DueTimer{std::string(av::get_S(row, "execution_id")), std::string(av::get_S(row, "path")),
                      parse_epoch(av::get_N(row, "fire_at"), "fire_at")};
    }));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.fire_at < b.fire_at; });
  co_return out;
}

CallSequence<bool> Operations::delete_timer(std::string_view execution_id, std::string_view path,
                                            EpochSeconds fire_at) const {
  check_id(execution_id, "execution id");
  check_id(path, "timer path");
  // Guarded on fire_at: a sweep that raced a re-schedule leaves the new timer.
  Attempt guarded_delete{{"DeleteItem",
                          {{"TableName", tables_.timers},
                           {"Key", timer_key(execution_id, path)},
                           {"ConditionExpression", "fire_at = :f"},
                           {"ExpressionAttributeValues", {{":f", epoch_number(fire_at)}}}}}};
  const Outcome deleted = co_await guarded_delete;
  rethrow_unless(deleted, {"ConditionalCheckFailedException"});
  co_return !deleted.error;
}

CallSequence<std::vector<TraceStep>> Operations::read_trace(std::string_view execution_id) const {
  check_id(execution_id, "execution id");
  bj::object request{{"TableName", tables_.trace},
                     {"KeyConditionExpression", "execution_id = :e"},
                     {"ExpressionAttributeValues", {{":e", av::S(execution_id)}}},
                     {"ScanIndexForward", true}};  // oldest → newest
  std::vector<TraceStep> out;
  for (;;) {
    DynamoCall query{"Query", request};
    bj::value response = co_await query;
    bj::object& body = response.as_object();
    if (const bj::value* items = body.if_contains("Items")) {
      for (const bj::value& raw : items->as_array()) {
        const bj::object& item = raw.as_object();
        out.push_back(decode_or_corrupt(tables_.trace, std::string(execution_id) + "/" + key_text(item, "idx"), [&] {
          return with_trace_index(parse_object(av::get_S(item, "entry"), "entry"), av::get_int(item, "idx"));
        }));
      }
    }
    bj::value* lek = body.if_contains("LastEvaluatedKey");
    if (!lek) break;
    request["ExclusiveStartKey"] = std::move(*lek);
  }
  co_return out;
}

CallSequence<Done> Operations::append_trace(std::string_view execution_id, const TraceStep& entry,
                                            std::int64_t trace_max) const {
  check_id(execution_id, "execution id");
  std::optional<std::int64_t> supplied = supplied_trace_index(entry);
  if (!supplied) {
    DynamoCall query = max_trace_index_query(tables_, execution_id);
    supplied = max_trace_index(co_await query) + 1;
  }
  const std::int64_t idx = *supplied;
  bj::object item = trace_key(execution_id, idx);
  item.emplace("entry", av::S(python_json(entry)));
  DynamoCall put_step{"PutItem", {{"TableName", tables_.trace}, {"Item", std::move(item)}}};
  co_await put_step;
  if (auto drop = trace_index_to_drop(idx, trace_max)) {
    DynamoCall drop_step{"DeleteItem", {{"TableName", tables_.trace}, {"Key", trace_key(execution_id, *drop)}}};
    co_await drop_step;
  }
  co_return Done{};
}

}  // namespace harel::store::dynamodb
