// Decoding the model's JSON straight from Boost.JSON's tokenizer into the
// model's members. Only the free-form values — context, event data, a
// child's result, unknown fields — are built as JSON values
// (json::ValueBuilder); every other field goes to its member as it is read.
//
// Why not parse to a DOM and pick the fields from it: a load spent most of
// its decoding building, searching and tearing down DOM nodes of fields that
// end up as std::strings and numbers (the README's benchmark section has
// the profile); listing executions decodes one record per item.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/serialize.hpp>

#include "harel/errors.h"
#include "harel/model/codec.h"
#include "json/value_builder.h"

namespace harel {
namespace {

namespace bj = boost::json;
using boost::system::error_code;
using sv = bj::string_view;

// Where the next value goes.
enum class Slot : std::uint8_t {
  Root,  // the document itself
  // fields of an Execution
  Id, DefinitionId, DefinitionFqn, RootPath, Status, Outcome, Error, ActivePath, History, Context,
  ProcessedEvents, Version, Priority, ParentId, ChildId, Deferred, Children, InvokeSeq,
  // fields of an Event (and Id)
  Kind, CreatedTime, ReceivedTime, Data,
  // fields of a ChildState (and RootPath, Outcome)
  Finished, Result, Submachine, Key,
  // a member of history / invoke_seq / children, an element of deferred
  HistoryEntry, InvokeSeqEntry, ChildEntry, DeferredEvent,
  Unknown,  // a field the model does not know: kept in `extra` as it is
};

struct Field {
  std::string_view name;
  Slot slot;
};

constexpr Field kExecutionFields[] = {
    {"id", Slot::Id},
    {"definition_id", Slot::DefinitionId},
    {"definition_fqn", Slot::DefinitionFqn},
    {"root_path", Slot::RootPath},
    {"status", Slot::Status},
    {"outcome", Slot::Outcome},
    {"error", Slot::Error},
    {"active_path", Slot::ActivePath},
    {"history", Slot::History},
    {"context", Slot::Context},
    {"processed_events", Slot::ProcessedEvents},
    {"version", Slot::Version},
    {"priority", Slot::Priority},
    {"parent_id", Slot::ParentId},
    {"child_id", Slot::ChildId},
    {"deferred", Slot::Deferred},
    {"children", Slot::Children},
    {"invoke_seq", Slot::InvokeSeq},
};
constexpr Field kEventFields[] = {{"id", Slot::Id},
                                  {"kind", Slot::Kind},
                                  {"created_time", Slot::CreatedTime},
                                  {"received_time", Slot::ReceivedTime},
                                  {"data", Slot::Data}};
constexpr Field kChildFields[] = {{"root_path", Slot::RootPath}, {"finished", Slot::Finished},
                                  {"outcome", Slot::Outcome},    {"result", Slot::Result},
                                  {"submachine", Slot::Submachine}, {"key", Slot::Key}};

template <std::size_t N>
Slot slot_of(const Field (&fields)[N], std::string_view key) {
  for (const Field& f : fields)
    if (f.name == key) return f.slot;
  return Slot::Unknown;
}

// What a slot holds, for "expected ..." messages.
const char* expected(Slot slot) {
  switch (slot) {
    case Slot::DefinitionFqn: case Slot::Outcome: case Slot::Error: case Slot::ActivePath: case Slot::ParentId:
    case Slot::ChildId: case Slot::CreatedTime: case Slot::ReceivedTime:
      return "expected a string or null";
    case Slot::ProcessedEvents: case Slot::Version: case Slot::Priority: case Slot::InvokeSeqEntry:
      return "expected an integer";
    case Slot::Finished: case Slot::Submachine:
      return "expected true or false";
    case Slot::History: case Slot::Children: case Slot::InvokeSeq: case Slot::Context: case Slot::Data:
      return "expected an object";
    case Slot::Deferred:
      return "expected an array";
    case Slot::Root: case Slot::ChildEntry: case Slot::DeferredEvent:
      return "expected a JSON object";
    default:
      return "expected a string";
  }
}

std::string join(std::string_view where, std::string_view field) {
  std::string path(where);
  if (!path.empty()) path += '.';
  return path.append(field);
}

enum class Kind : std::uint8_t { Object, Array, Scalar };

// The Boost.JSON handler that decodes one Execution or Event. A decoding
// error is kept for the caller to raise (a handler must not throw through
// the parser), and the rest of the text is only checked for syntax.
class RecordReader {
 public:
  static constexpr std::size_t max_object_size = json::ValueBuilder::max_object_size;
  static constexpr std::size_t max_array_size = json::ValueBuilder::max_array_size;
  static constexpr std::size_t max_key_size = json::ValueBuilder::max_key_size;
  static constexpr std::size_t max_string_size = json::ValueBuilder::max_string_size;

  // What is decoded. A Summary is an Execution decoded and checked exactly
  // as a whole one, except that its free-form values are not built (their
  // syntax is checked): a listing shows no context.
  enum class Record { Execution, Summary, Event };

  RecordReader(Record record, std::string_view where, unsigned char* temp, std::size_t temp_size)
      : record_(record), build_(record != Record::Summary), where_(where), builder_(temp, temp_size) {}

  Execution execution;  // the result when decoding an Execution or a Summary
  Event event;          // the result when decoding an Event
  const std::optional<DecodeError>& error() const { return error_; }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_comment_part(sv, error_code&) { return true; }
  bool on_comment(sv, error_code&) { return true; }

  // After an error (error_ set) every event is ignored: the rest of the text
  // is only checked for syntax.
  bool on_object_begin(error_code& ec) { return error_ || begin(Kind::Object, ec); }
  bool on_array_begin(error_code& ec) { return error_ || begin(Kind::Array, ec); }
  bool on_object_end(std::size_t n, error_code& ec) {
    if (error_) return true;
    if (!capturing_) return close(ec);
    if (build_) builder_.on_object_end(n, ec);
    return --depth_ ? true : finish_capture();
  }
  bool on_array_end(std::size_t n, error_code& ec) {
    if (error_) return true;
    if (!capturing_) return close(ec);
    if (build_) builder_.on_array_end(n, ec);
    return --depth_ ? true : finish_capture();
  }

  bool on_key_part(sv s, std::size_t n, error_code& ec) {
    if (error_) return true;
    if (capturing_) return !build_ || builder_.on_key_part(s, n, ec);
    append_key(s);
    return true;
  }
  bool on_key(sv s, std::size_t n, error_code& ec) {
    if (error_) return true;
    if (capturing_) return !build_ || builder_.on_key(s, n, ec);
    append_key(s);
    key_done_ = true;
    const Frame& f = open_.back();
    switch (f.kind) {
      case FrameKind::Execution: slot_ = slot_of(kExecutionFields, key_); break;
      case FrameKind::Event: slot_ = slot_of(kEventFields, key_); break;
      case FrameKind::Child: slot_ = slot_of(kChildFields, key_); break;
      case FrameKind::History: slot_ = Slot::HistoryEntry; break;
      case FrameKind::InvokeSeq: slot_ = Slot::InvokeSeqEntry; break;
      case FrameKind::Children: slot_ = Slot::ChildEntry; break;
      case FrameKind::Deferred: break;  // arrays have no keys
    }
    return true;
  }

  bool on_string_part(sv s, std::size_t n, error_code& ec) {
    return part(ec, [&] { return builder_.on_string_part(s, n, ec); }, [&] {
      if (!in_parts_) text_.clear();
      in_parts_ = true;
      text_.append(s.data(), s.size());
      return true;
    });
  }
  bool on_string(sv s, std::size_t n, error_code& ec) {
    return scalar(ec, [&] { return builder_.on_string(s, n, ec); }, [&] {
      if (!in_parts_) return text(s, ec);
      in_parts_ = false;
      text_.append(s.data(), s.size());
      return text(text_, ec);
    });
  }
  bool on_number_part(sv s, error_code& ec) {
    // Only a free-form value keeps a number's text (a double's exact digits).
    return part(ec, [&] { return builder_.on_number_part(s, ec); }, [] { return true; });
  }
  bool on_int64(std::int64_t i, sv s, error_code& ec) {
    return scalar(ec, [&] { return builder_.on_int64(i, s, ec); }, [&] { return integer(i, ec); });
  }
  bool on_uint64(std::uint64_t u, sv s, error_code& ec) {
    return scalar(ec, [&] { return builder_.on_uint64(u, s, ec); }, [&] {
      // Integers beyond int64 fit no field; invoke_seq takes int64 only.
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) || slot_ == Slot::InvokeSeqEntry)
        return fail(expected(slot_), ec);
      return integer(static_cast<std::int64_t>(u), ec);
    });
  }
  bool on_double(double d, sv s, error_code& ec) {
    return scalar(ec, [&] { return builder_.on_double(d, s, ec); }, [&] { return fail(expected(slot_), ec); });
  }
  bool on_bool(bool b, error_code& ec) {
    return scalar(ec, [&] { return builder_.on_bool(b, ec); }, [&] {
      ChildState* child = open_.back().child;
      switch (slot_) {
        case Slot::Finished: child->finished = b; return true;
        case Slot::Submachine: child->submachine = b; return true;
        default: return fail(expected(slot_), ec);
      }
    });
  }
  bool on_null(error_code& ec) {
    return scalar(ec, [&] { return builder_.on_null(ec); }, [&] {
      if (std::optional<std::string>* member = optional_text()) {
        member->reset();
        return true;
      }
      return fail(expected(slot_), ec);
    });
  }

 private:
  enum class FrameKind : std::uint8_t { Execution, Event, Child, History, Children, InvokeSeq, Deferred };

  // An open object or array of the record (free-form values are not framed).
  struct Frame {
    FrameKind kind;
    std::string where;  // its path in error messages: "", "deferred[2]", "children.c1", ...
    Event* event = nullptr;       // FrameKind::Event
    ChildState* child = nullptr;  // FrameKind::Child
    bool has_id = false;          // required fields seen: id, and definition_id / kind
    bool has_second = false;
    std::size_t elements = 0;  // FrameKind::Deferred: events read so far
  };

  // Member: decoded here; Builder: part of a free-form value being built;
  // Skip: part of a free-form value not built (a summary); Failed: error_ set.
  enum class Route { Member, Builder, Skip, Failed };

  // Where the next value's events go: to the builder when it is (or starts)
  // a free-form value, else to the member decoding below.
  Route route(Kind kind, error_code& ec) {
    if (capturing_) return build_ ? Route::Builder : Route::Skip;
    switch (slot_) {
      case Slot::Root:  // the record itself: an object, framed by begin()
        if (kind != Kind::Scalar) return Route::Member;
        fail(expected(slot_), ec);
        return Route::Failed;
      case Slot::Context:
      case Slot::Data:
        if (kind == Kind::Object) break;
        fail(expected(slot_), ec);
        return Route::Failed;
      case Slot::Result:
      case Slot::Unknown:
        break;
      default:
        return Route::Member;
    }
    capturing_ = true;
    depth_ = 0;
    if (!build_) return Route::Skip;
    builder_.reset();
    return Route::Builder;
  }

  // A complete scalar value: the builder's (`build`), skipped, or decoded
  // into its member (`member`).
  template <class Build, class Member>
  bool scalar(error_code& ec, Build build, Member member) {
    if (error_) return true;
    switch (route(Kind::Scalar, ec)) {
      case Route::Builder: return build() && scalar_captured();
      case Route::Skip: return scalar_captured();
      case Route::Failed: return true;  // error_ is set
      case Route::Member: break;
    }
    return member();
  }

  // A part of a string or number whose value is not complete yet.
  template <class Build, class Member>
  bool part(error_code& ec, Build build, Member member) {
    if (error_) return true;
    switch (route(Kind::Scalar, ec)) {
      case Route::Builder: return build();
      case Route::Skip:
      case Route::Failed: return true;
      case Route::Member: break;
    }
    return member();
  }

  bool begin(Kind kind, error_code& ec) {
    switch (route(kind, ec)) {
      case Route::Builder:
      case Route::Skip: ++depth_; return true;
      case Route::Failed: return true;  // error_ is set
      case Route::Member: break;
    }
    const bool object = kind == Kind::Object;
    switch (slot_) {
      case Slot::Root:
        if (!object) return fail(expected(slot_), ec);
        if (record_ == Record::Event) {
          open_.push_back({FrameKind::Event, std::string(where_)});
          open_.back().event = &event;
        } else {
          open_.push_back({FrameKind::Execution, std::string(where_)});
        }
        return true;
      case Slot::History:
        if (!object) return fail(expected(slot_), ec);
        execution.history.clear();  // a repeated key: the last one counts
        return push(FrameKind::History);
      case Slot::Children:
        if (!object) return fail(expected(slot_), ec);
        execution.children.clear();
        return push(FrameKind::Children);
      case Slot::InvokeSeq:
        if (!object) return fail(expected(slot_), ec);
        execution.invoke_seq.clear();
        return push(FrameKind::InvokeSeq);
      case Slot::Deferred:
        if (object) return fail(expected(slot_), ec);
        execution.deferred.clear();
        push(FrameKind::Deferred);
        slot_ = Slot::DeferredEvent;
        return true;
      case Slot::DeferredEvent: {
        if (!object) return fail(expected(slot_), ec);
        std::string where = value_path();
        open_.push_back({FrameKind::Event, std::move(where), &execution.deferred.emplace_back()});
        return true;
      }
      case Slot::ChildEntry: {
        if (!object) return fail(expected(slot_), ec);
        ChildState& child = execution.children[key_];
        child = ChildState();
        open_.push_back({FrameKind::Child, value_path(), nullptr, &child});
        return true;
      }
      default:
        return fail(expected(slot_), ec);
    }
  }

  bool push(FrameKind kind) {
    open_.push_back({kind, value_path()});
    return true;
  }

  bool close(error_code& ec) {
    const Frame& f = open_.back();
    if (f.kind == FrameKind::Execution || f.kind == FrameKind::Event) {
      if (!f.has_id) return fail_at(join(f.where, "id"), "missing", ec);
      if (!f.has_second) return fail_at(join(f.where, f.kind == FrameKind::Event ? "kind" : "definition_id"), "missing", ec);
    }
    open_.pop_back();
    if (!open_.empty() && open_.back().kind == FrameKind::Deferred) {
      ++open_.back().elements;
      slot_ = Slot::DeferredEvent;
    }
    return true;
  }

  bool scalar_captured() { return depth_ ? true : finish_capture(); }

  bool finish_capture() {
    capturing_ = false;
    if (!build_) return true;
    bj::value v = builder_.release();
    Frame& f = open_.back();
    switch (slot_) {
      case Slot::Context: execution.context = std::move(v.get_object()); break;
      case Slot::Data: f.event->data = std::move(v.get_object()); break;
      case Slot::Result: f.child->result = std::move(v); break;
      default: extra_of(f).insert_or_assign(key_, std::move(v)); break;
    }
    return true;
  }

  bj::object& extra_of(Frame& f) {
    if (f.event) return f.event->extra;
    if (f.child) return f.child->extra;
    return execution.extra;
  }

  // The optional string member of the slot, if it is one.
  std::optional<std::string>* optional_text() {
    Frame& f = open_.back();
    switch (slot_) {
      case Slot::DefinitionFqn: return &execution.definition_fqn;
      case Slot::Outcome: return f.child ? &f.child->outcome : &execution.outcome;
      case Slot::Error: return &execution.error;
      case Slot::ActivePath: return &execution.active_path;
      case Slot::ParentId: return &execution.parent_id;
      case Slot::ChildId: return &execution.child_id;
      case Slot::CreatedTime: return &f.event->created_time;
      case Slot::ReceivedTime: return &f.event->received_time;
      default: return nullptr;
    }
  }

  bool text(std::string_view s, error_code& ec) {
    if (std::optional<std::string>* member = optional_text()) {
      member->emplace(s);
      return true;
    }
    Frame& f = open_.back();
    switch (slot_) {
      case Slot::Id:
        (f.event ? f.event->id : execution.id) = s;
        f.has_id = true;
        return true;
      case Slot::DefinitionId:
        execution.definition_id = s;
        f.has_second = true;
        return true;
      case Slot::Kind:
        f.event->kind = s;
        f.has_second = true;
        return true;
      case Slot::RootPath: (f.child ? f.child->root_path : execution.root_path) = s; return true;
      case Slot::Key: f.child->key = s; return true;
      case Slot::HistoryEntry: execution.history.insert_or_assign(key_, std::string(s)); return true;
      case Slot::Status:
        if (auto status = parse_status(s)) {
          execution.status = *status;
          return true;
        }
        return fail("unknown status '" + std::string(s) + "'", ec);
      default:
        return fail(expected(slot_), ec);
    }
  }

  bool integer(std::int64_t i, error_code& ec) {
    switch (slot_) {
      case Slot::ProcessedEvents: execution.processed_events = i; return true;
      case Slot::Version:
        if (i < 0) return fail("must not be negative", ec);
        execution.version = i;
        return true;
      case Slot::Priority:
        if (i < 0 || i > 4) return fail("must be 0..4", ec);
        execution.priority = static_cast<int>(i);
        return true;
      case Slot::InvokeSeqEntry: execution.invoke_seq.insert_or_assign(key_, i); return true;
      default: return fail(expected(slot_), ec);
    }
  }

  void append_key(sv s) {
    if (key_done_) {
      key_.clear();
      key_done_ = false;
    }
    key_.append(s.data(), s.size());
  }

  // The path of the value about to be read, for messages and frames.
  std::string value_path() const {
    if (open_.empty()) return std::string(where_);
    const Frame& f = open_.back();
    if (f.kind == FrameKind::Deferred) return f.where + "[" + std::to_string(f.elements) + "]";
    return join(f.where, key_);
  }

  bool fail(const std::string& what, error_code& ec) { return fail_at(value_path(), what, ec); }
  // Keeps the first error; the parser goes on only to tell whether the
  // text is JSON at all (that is the better message when it is not).
  bool fail_at(std::string field, const std::string& what, error_code&) {
    error_.emplace(std::move(field), what);
    return true;
  }

  Record record_;
  bool build_;  // whether free-form values are built
  std::string_view where_;
  std::vector<Frame> open_;
  Slot slot_ = Slot::Root;
  std::string key_;       // the last key read (a field name or a map key)
  bool key_done_ = true;  // whether key_ is complete (the next part starts a new key)
  std::string text_;      // a string value that came in parts
  bool in_parts_ = false;  // text_ holds the first parts of the current string
  json::ValueBuilder builder_;
  bool capturing_ = false;  // the current value is free-form: its events go to builder_
  std::size_t depth_ = 0;   // open objects and arrays of the free-form value
  std::optional<DecodeError> error_;
};

// Decodes `text` as `record` and moves the result out of the reader's `member`.
template <class T>
T decode(std::string_view text, RecordReader::Record record, std::string_view where, T RecordReader::*member) {
  // The builder's scratch space: on the stack unless a value is big.
  unsigned char temp[4096];
  bj::basic_parser<RecordReader> parser(bj::parse_options{}, record, where, temp, sizeof temp);
  error_code ec;
  const std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && used < text.size()) ec = bj::error::extra_data;
  if (ec) throw DecodeError(std::string(where), "not valid JSON (" + ec.message() + ")");
  if (const std::optional<DecodeError>& error = parser.handler().error()) throw *error;
  return std::move(parser.handler().*member);
}

}  // namespace

Execution parse_execution(std::string_view text) {
  return decode(text, RecordReader::Record::Execution, "", &RecordReader::execution);
}

ExecutionSummary parse_execution_summary(std::string_view text) {
  return ExecutionSummary::of(decode(text, RecordReader::Record::Summary, "", &RecordReader::execution));
}

Event parse_event(std::string_view text) { return decode(text, RecordReader::Record::Event, "", &RecordReader::event); }

// A value already parsed goes through its text: one decoder for both.
Execution execution_from_json(const bj::value& v) { return parse_execution(bj::serialize(v)); }

Event event_from_json(const bj::value& v, std::string_view where) {
  return decode(bj::serialize(v), RecordReader::Record::Event, where, &RecordReader::event);
}

}  // namespace harel
