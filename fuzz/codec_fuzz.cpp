// The JSON wire codec: any bytes either decode or raise DecodeError, and a
// decoded record writes out to text that decodes to the very same text again
// (what a load → save cycle relies on to keep records unchanged). A listing's
// summary decoder accepts and rejects exactly what the full decoder does.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "harel/errors.h"
#include "harel/model/codec.h"

namespace {

template <class Parse>
void round_trip(std::string_view text, Parse parse) {
  std::string first;
  try {
    first = harel::to_json(parse(text));
  } catch (const harel::DecodeError&) {
    return;  // the one way to reject input
  }
  const std::string second = harel::to_json(parse(first));
  if (second != first) {  // written text must re-read identically
    std::fprintf(stderr, "unstable round trip:\n first: %s\nsecond: %s\n", first.c_str(), second.c_str());
    std::abort();
  }
}

// parse_execution_summary must agree with parse_execution on every input:
// the same summary, or a DecodeError naming the same field.
void same_summary(std::string_view text) {
  std::string whole_error, summary_error;
  std::optional<harel::ExecutionSummary> whole, summary;
  try {
    whole = harel::ExecutionSummary::of(harel::parse_execution(text));
  } catch (const harel::DecodeError& e) {
    whole_error = e.field() + ": " + e.what();
  }
  try {
    summary = harel::parse_execution_summary(text);
  } catch (const harel::DecodeError& e) {
    summary_error = e.field() + ": " + e.what();
  }
  if (whole != summary || whole_error != summary_error) {
    std::fprintf(stderr, "summary decoder disagrees:\n whole: %s\n summary: %s\n", whole_error.c_str(),
                 summary_error.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    round_trip(text, [](std::string_view t) { return harel::parse_execution(t); });
    same_summary(text);
  }
  else
    round_trip(text, [](std::string_view t) { return harel::parse_event(t); });
  return 0;
}
