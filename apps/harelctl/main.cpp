// harelctl: inspect and drive harel stores from the shell.
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "demo.h"
#include "harel/errors.h"
#include "harel/store/open.h"
#include "worker_processes.h"

int main(int argc, char** argv) {
  using namespace harelctl;
  CLI::App app{"harelctl — inspect and drive durable statechart executions"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every command");

  Globals g;
  const char* env_store = std::getenv("HAREL_STORE");
  g.store_url = env_store && *env_store ? env_store : std::string(harel::kDefaultStoreUrl);
  app.add_option("--store", g.store_url,
                 "Store URL: sqlite:PATH, memory:, dynamodb://HOST:PORT?prefix=P, dynamodb:?region=R&prefix=P "
                 "(default $HAREL_STORE, else sqlite:harel.db)")
      ->capture_default_str();
  const char* env_transport = std::getenv("HAREL_TRANSPORT");
  if (env_transport) g.transport_url = env_transport;
  app.add_option("--transport", g.transport_url,
                 "Transport URL: sqlite:PATH, memory: (default $HAREL_TRANSPORT, else the sqlite: store's own file, "
                 "in-process for memory:, none for DynamoDB)");
  app.add_flag("--json", g.json, "Machine-readable JSON output");
  app.add_option("--definitions", g.definitions_dir, "Directory of extra statechart definitions (*.json)");

  int rc = 0;
  auto* init_cmd = app.add_subcommand("init", "Create the store's file or tables");
  init_cmd->callback([&] { rc = init(g); });

  CreateOptions co;
  auto* create_cmd = app.add_subcommand("create", "Start a workflow: a new execution entering its initial states");
  create_cmd->add_option("id", co.id, "Execution id")->required();
  create_cmd->add_option("--definition,-d", co.definition_id, "Definition id")->required();
  create_cmd->add_option("--context,-c", co.context_json, "Context as a JSON object")->capture_default_str();
  create_cmd->callback([&] { rc = create(g, co); });

  ListOptions lo;
  auto* list_cmd = app.add_subcommand("list", "List executions, one page or --all");
  list_cmd->add_option("--status,-s", lo.statuses, "Status filter, any of (repeat or comma-separate)")
      ->delimiter(',');
  list_cmd->add_option("--definition,-d", lo.definition_id, "Only this definition");
  list_cmd->add_flag("--roots-only", lo.roots_only, "Only executions without a parent");
  list_cmd->add_option("--limit,-n", lo.limit, "Page size")->check(CLI::PositiveNumber)->capture_default_str();
  list_cmd->add_option("--cursor", lo.cursor, "Continue from a previous page");
  list_cmd->add_flag("--all,-a", lo.all, "Follow pages to the end");
  list_cmd->callback([&] { rc = list(g, lo); });

  std::string id;
  auto* show_cmd = app.add_subcommand("show", "Print one execution");
  show_cmd->add_option("id", id, "Execution id")->required();
  show_cmd->callback([&] { rc = show(g, id); });

  auto* trace_cmd = app.add_subcommand("trace", "Print an execution's trace ring, oldest first");
  trace_cmd->add_option("id", id, "Execution id")->required();
  trace_cmd->callback([&] { rc = trace(g, id); });

  app.add_subcommand("outbox", "Pending outbox events, oldest first")->callback([&] { rc = outbox(g); });
  app.add_subcommand("spawns", "Pending spawn intents, oldest first")->callback([&] { rc = spawns(g); });

  TimersOptions to;
  auto* timers_cmd = app.add_subcommand("timers", "Timers due now (or at --due-at), earliest first");
  timers_cmd->add_option("--due-at", to.due_at, "Seconds since the epoch (default: now)");
  timers_cmd->add_flag("--all", to.all, "Every armed timer, due or not");
  timers_cmd->callback([&] { rc = timers(g, to); });

  DemoOptions demo_options;
  auto* demo_cmd = app.add_subcommand("demo", "Run N order workflows end to end and check every outcome");
  demo_cmd->add_option("--orders,-n", demo_options.orders, "How many orders")->capture_default_str();
  demo_cmd->add_option("--workers,-w", demo_options.workers,
                       "Workers of this process, each a thread with its own event loop (default " +
                           std::to_string(kDefaultWorkers) + "; with --processes P > 1 each process runs one, so only 1 is accepted)");
  demo_cmd->add_option("--processes,-p", demo_options.processes,
                       "Run the workers as P `harelctl worker` processes, one worker each, sharing the store and its "
                       "transport (not memory:); at the end each gets SIGTERM, SIGKILL after " +
                           std::to_string(kWorkerStopTimeout.count()) + " s")
      ->capture_default_str();
  demo_cmd->add_option("--concurrency,-c", demo_options.concurrency, "Events in flight per worker")->capture_default_str();
  demo_cmd->add_flag("--trace", demo_options.trace, "Record each execution's trace (see `harelctl trace ID`)");
  demo_cmd->add_option("--run-id", demo_options.run_id, "Order ids are order-<run-id>-<n> (default: random); an existing run id resumes that run");
  demo_cmd->callback([&] { rc = demo(g, demo_options); });

  SendOptions so;
  auto* send_cmd = app.add_subcommand("send", "Send an event to an execution via the transport (applied once per event id)");
  send_cmd->add_option("id", so.id, "Execution id")->required();
  send_cmd->add_option("kind", so.kind, "Event kind")->required();
  send_cmd->add_option("--data", so.data_json, "Event data as a JSON object")->capture_default_str();
  send_cmd->add_option("--event-id", so.event_id, "Event id (default: fresh); resending one is a no-op");
  send_cmd->callback([&] { rc = send(g, so); });

  LoopOptions lo_relay, lo_sweep;
  auto* relay_cmd = app.add_subcommand("relay", "Recover every pending outbox event and spawn (poison rows are kept and reported)");
  relay_cmd->add_flag("--follow,-f", lo_relay.follow, "Keep relaying until interrupted");
  relay_cmd->add_flag("--trace", lo_relay.trace, "Record trace steps for the commits it makes");
  relay_cmd->callback([&] { rc = relay(g, lo_relay); });
  auto* sweep_cmd = app.add_subcommand("sweep", "Fire due timers");
  sweep_cmd->add_flag("--follow,-f", lo_sweep.follow, "Keep sweeping until interrupted");
  sweep_cmd->add_flag("--trace", lo_sweep.trace, "Record trace steps for the commits it makes");
  sweep_cmd->callback([&] { rc = sweep(g, lo_sweep); });

  WorkerCommandOptions wo;
  auto* worker_cmd = app.add_subcommand("worker", "Consume the transport: apply events, one worker per execution at a time");
  worker_cmd->add_option("--concurrency,-c", wo.concurrency, "Events in flight")->check(CLI::PositiveNumber)->capture_default_str();
  worker_cmd->add_option("--max-attempts", wo.max_attempts, "Failures before an event is parked")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  worker_cmd->add_flag("--once", wo.once, "Recover, fire due timers, drain the transport, then exit");
  worker_cmd->add_flag("--trace", wo.trace, "Record trace steps for the commits it makes");
  worker_cmd->add_option("--visibility", wo.visibility_seconds, "Lease length in seconds (a crashed worker's events return after it)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  worker_cmd->add_option("--grace", wo.grace_seconds, "Seconds an outbox or spawn row may stay pending before recovery delivers it")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  worker_cmd->add_option("--status-every", wo.status_seconds, "Seconds between status lines (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  worker_cmd->callback([&] { rc = worker(g, wo); });

  app.add_subcommand("parked", "Events parked in the transport after failing too often")->callback([&] {
    rc = parked(g);
  });
  RequeueOptions ro;
  auto* requeue_cmd = app.add_subcommand("requeue", "Put parked events back in circulation");
  requeue_cmd->add_option("id", ro.id, "A parked message id (see `harelctl parked`)");
  requeue_cmd->add_flag("--all", ro.all, "Every parked message");
  requeue_cmd->callback([&] { rc = requeue(g, ro); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const harel::Error& e) {
    std::cerr << "harelctl: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "harelctl: unexpected error: " << e.what() << '\n';
    return 2;
  }
  return rc;
}
