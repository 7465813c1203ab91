// harelctl: inspect and drive harel stores from the shell.
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.h"
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
