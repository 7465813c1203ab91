// harelctl: inspect and drive harel stores from the shell.
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "demo.h"
#include "harel/errors.h"
#include "harel/store/open.h"

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
  app.add_flag("--json", g.json, "Machine-readable JSON output");
  app.add_option("--definitions", g.definitions_dir, "Directory of extra statechart definitions (*.json)");

  int rc = 0;
  auto* init_cmd = app.add_subcommand("init", "Create the store's file or tables");
  init_cmd->callback([&] { rc = init(g); });

  CreateOptions co;
  auto* create_cmd = app.add_subcommand("create", "Store a new execution (version 1)");
  create_cmd->add_option("id", co.id, "Execution id")->required();
  create_cmd->add_option("--definition,-d", co.definition_id, "Definition id")->required();
  create_cmd->add_option("--context,-c", co.context_json, "Context as a JSON object")->capture_default_str();
  create_cmd->add_option("--priority", co.priority, "Priority 0..4")->check(CLI::Range(0, 4));
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
  demo_cmd->add_option("--workers,-w", demo_options.workers, "Worker threads")->capture_default_str();
  demo_cmd->add_flag("--trace", demo_options.trace, "Record each execution's trace (see `harelctl trace ID`)");
  demo_cmd->add_option("--run-id", demo_options.run_id, "Order ids are order-<run-id>-<n> (default: random); an existing run id resumes that run");
  demo_cmd->callback([&] { rc = demo(g, demo_options); });

  SendOptions so;
  auto* send_cmd = app.add_subcommand("send", "Deliver an event to an execution (exactly once per event id)");
  send_cmd->add_option("id", so.id, "Execution id")->required();
  send_cmd->add_option("kind", so.kind, "Event kind")->required();
  send_cmd->add_option("--data", so.data_json, "Event data as a JSON object")->capture_default_str();
  send_cmd->add_option("--event-id", so.event_id, "Event id (default: fresh); resending one is a no-op");
  send_cmd->callback([&] { rc = send(g, so); });

  LoopOptions lo_relay, lo_sweep;
  auto* relay_cmd = app.add_subcommand("relay", "Deliver pending outbox events and create pending children");
  relay_cmd->add_flag("--follow,-f", lo_relay.follow, "Keep relaying until interrupted");
  relay_cmd->add_flag("--trace", lo_relay.trace, "Record trace steps for the commits it makes");
  relay_cmd->callback([&] { rc = relay(g, lo_relay); });
  auto* sweep_cmd = app.add_subcommand("sweep", "Fire due timers");
  sweep_cmd->add_flag("--follow,-f", lo_sweep.follow, "Keep sweeping until interrupted");
  sweep_cmd->add_flag("--trace", lo_sweep.trace, "Record trace steps for the commits it makes");
  sweep_cmd->callback([&] { rc = sweep(g, lo_sweep); });

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
