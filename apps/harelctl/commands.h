// harelctl's commands, one function each; main.cpp wires them to the CLI.
// Each returns the process exit code and raises harel::Error on failure.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "harel/errors.h"
#include "harel/transport/transport.h"

namespace harelctl {

struct Globals {
  std::string store_url;
  std::string transport_url;     // --transport / HAREL_TRANSPORT; empty: the store's default (fleet.h)
  bool json = false;             // machine-readable output
  std::string definitions_dir;   // extra definitions (*.json) besides the shipped examples
};

// The transport harelctl uses: --transport / HAREL_TRANSPORT if given; else,
// for a sqlite:PATH store, the SQLite transport in the same file; for memory:,
// an in-process one; for a DynamoDB store, none (nullopt).
std::optional<std::string> effective_transport_url(const Globals& g);

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
};

struct TimersOptions {
  std::optional<double> due_at;  // default: now
  bool all = false;              // every armed timer, due or not
};

int init(const Globals& g);
// Starts a workflow as DurableRunner::create does; its start's emits go to the transport.
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

// Publishes one event to an execution's group on the effective transport, or
// (without one) applies it at once.
int send(const Globals& g, const SendOptions& o);

struct LoopOptions {
  bool follow = false;  // keep going until interrupted
  bool trace = false;   // opt-in trace for the commits it makes
};

// One recovery pass over every pending outbox and spawn row (published to
// the transport, or applied without one), or --follow. A row that fails is
// reported and kept; the rows behind it are still delivered.
int relay(const Globals& g, const LoopOptions& o);
// One timer sweep, or --follow.
int sweep(const Globals& g, const LoopOptions& o);

struct WorkerCommandOptions {
  int concurrency = 64;
  int max_attempts = 5;
  bool once = false;        // drain what is due, then exit
  bool trace = false;
  double visibility_seconds = 30;  // a lease's length: how soon a crashed worker's events come back
  double grace_seconds = 30;       // how long a row may stay pending before recovery delivers it
  int status_seconds = 5;   // status line period (0: none)
};

// The error for a command that needs a transport and has none; it names the choices.
harel::InvalidArgument no_transport(const Globals& g, const std::string& command);

// Consumes the effective transport until SIGINT / SIGTERM (or drained, --once).
int worker(const Globals& g, const WorkerCommandOptions& o);

// The transport's parked messages.
int parked(const Globals& g);
void print_parked(const std::vector<harel::ParkedMessage>& items, std::ostream& out);

struct RequeueOptions {
  std::optional<std::string> id;
  bool all = false;
};

// Puts parked messages back in circulation.
int requeue(const Globals& g, const RequeueOptions& o);

}  // namespace harelctl
