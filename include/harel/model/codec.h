// The JSON wire codec of the model, byte-compatible with the reference
// implementation (see shared/vectors): field names and order, enum spellings,
// `null` for empty optionals, timestamps kept as written, unknown fields kept.
//
// Decoding never trusts its input: anything of the wrong shape raises
// DecodeError naming the field; stores turn that into CorruptRecord.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "harel/model/event.h"
#include "harel/model/execution.h"
#include "harel/model/summary.h"

namespace harel {

// Appends the JSON text of `exe` / `ev` (pydantic `model_dump_json` shape).
void write_json(std::string& out, const Execution& exe);
void write_json(std::string& out, const Event& ev);
std::string to_json(const Execution& exe);
std::string to_json(const Event& ev);
// `exe` as if its version were `version`: what a commit stores, without
// copying the execution to bump its version.
void write_json(std::string& out, const Execution& exe, std::int64_t version);
std::string to_json(const Execution& exe, std::int64_t version);

// Parses JSON text; raises DecodeError on malformed input.
Execution parse_execution(std::string_view text);
Event parse_event(std::string_view text);
// The summary of the Execution in `text`, checked as parse_execution checks
// it (the same input raises the same DecodeError) but without building its
// context, event data, results or unknown fields: what a listing needs.
ExecutionSummary parse_execution_summary(std::string_view text);

// Builds the model from an already-parsed JSON value. `where` prefixes the
// field names in errors (e.g. "deferred[2]").
Execution execution_from_json(const boost::json::value& v);
Event event_from_json(const boost::json::value& v, std::string_view where = "");

// Parses JSON text that must be an object (spawn context, trace entry).
boost::json::object parse_object(std::string_view text, std::string_view what);

// A summary as a JSON object (for `harelctl --json` and scripts).
boost::json::object to_json_object(const ExecutionSummary& s);

}  // namespace harel
