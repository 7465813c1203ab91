// harelctl's commands, one function each; main.cpp wires them to the CLI.
// Each returns the process exit code and raises harel::Error on failure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace harelctl {

struct Globals {
  std::string store_url;
  bool json = false;             // machine-readable output
  std::string definitions_dir;   // extra definitions (*.json) besides the shipped examples
};

struct ListOptions {
  std::vector<std::string> statuses;  // any-of, case-insensitive
  std::optional<std::string> definition_id;
  bool roots_only = false;
  std::int64_t limit = 50;
  std::optional<std::string> cursor;
  bool all = false;  // follow next_cursor to the end
};

struct CreateOptions {
  std::string id;
  std::string definition_id;
  std::string context_json = "{}";
  int priority = 0;
};

struct TimersOptions {
  std::optional<double> due_at;  // default: now
  bool all = false;              // every armed timer, due or not
};

int init(const Globals& g);
int create(const Globals& g, const CreateOptions& o);
int list(const Globals& g, const ListOptions& o);
int show(const Globals& g, const std::string& id);
int trace(const Globals& g, const std::string& id);
int outbox(const Globals& g);
int spawns(const Globals& g);
int timers(const Globals& g, const TimersOptions& o);

struct SendOptions {
  std::string id;
  std::string kind;
  std::string data_json = "{}";
  std::optional<std::string> event_id;  // default: a fresh unique id
};

// Delivers one event to an execution through the durable runner.
int send(const Globals& g, const SendOptions& o);

struct LoopOptions {
  bool follow = false;  // keep going until interrupted
  bool trace = false;   // opt-in trace for the commits it makes
};

// One relay pass (outbox deliveries and spawns), or --follow.
int relay(const Globals& g, const LoopOptions& o);
// One timer sweep, or --follow.
int sweep(const Globals& g, const LoopOptions& o);

}  // namespace harelctl
