// harelctl as a user runs it: a separate process over a real SQLite file.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harel/store/sqlite_store.h"
#include "support/servers.h"

namespace harel {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct Ran {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs a shell command line; its stdout, exit status, and (when redirected
// to `err_file`) its stderr.
Ran shell(const std::string& command, const fs::path& err_file = {}) {
  Ran r;
  FILE* p = ::popen(command.c_str(), "r");
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int raw = ::pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  if (!err_file.empty()) {
    std::ifstream in(err_file);
    std::stringstream ss;
    ss << in.rdbuf();
    r.err = ss.str();
  }
  return r;
}

class Harelctl : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("harelctl-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "h.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs harelctl with `args` (shell-quoted by the caller) against this test's file.
  Ran run(const std::string& args) {
    const fs::path err = dir_ / "stderr";
    return shell(std::string(HARELCTL_PATH) + " --store sqlite:" + db_ + " " + args + " 2>" + err.string(), err);
  }

  // Fills the file with executions, outbox, spawns, timers and a trace.
  void populate() {
    SqliteStore store(db_);
    for (int i = 0; i < 5; ++i) {
      Execution e;
      e.id = "ord-" + std::to_string(i);
      e.definition_id = i < 3 ? "order" : "refund";
      e.status = i % 2 ? Status::Done : Status::Running;
      e.context = {{"n", i}};
      if (i == 4) e.parent_id = "ord-0";
      Effects fx;
      if (i == 0) {
        fx.emits.push_back({"ord-1", Event{"ev-1", "Paid", std::nullopt, std::nullopt, {{"amount", 12.5}}, {}}});
        fx.emits.push_back({std::nullopt, Event{"ev-2", "Broadcast", std::nullopt, std::nullopt, {}, {}}});
        fx.spawns.push_back({"ord-0.Fork.A.0", "Fork.A", {{"seed", 1}}});
        fx.timers.push_back(TimerOp::schedule("Waiting", 1764669600.25));
        fx.timers.push_back(TimerOp::schedule("Later", 4102444800.0));
        fx.trace = TraceStep{{"event_kind", "Go"}, {"to_path", "S0"}};
      }
      store.commit(e, fx);
    }
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(Harelctl, InitCreatesTheFile) {
  const Ran r = run("init");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("store ready"));
  EXPECT_TRUE(fs::exists(db_));
}

TEST_F(Harelctl, CreateThenShow) {
  Ran r = run("create ord-9 --definition order --context '{\"sku\":\"A-1\",\"qty\":2}'");
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("--json show ord-9");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto v = boost::json::parse(r.out).as_object();
  EXPECT_EQ(v.at("version").as_int64(), 1);
  // Created means started: the workflow entered its initial state.
  EXPECT_EQ(v.at("status").as_string(), "RUNNING");
  EXPECT_EQ(v.at("active_path").as_string(), "Cart");
  EXPECT_EQ(v.at("context").at("sku").as_string(), "A-1");
  r = run("show ord-9");
  EXPECT_THAT(r.out, HasSubstr("\"definition_id\": \"order\""));
}

TEST_F(Harelctl, ListFiltersAndPages) {
  populate();
  Ran r = run("list");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ID"));
  for (int i = 0; i < 5; ++i) EXPECT_THAT(r.out, HasSubstr("ord-" + std::to_string(i)));

  r = run("--json list --definition refund");
  auto items = boost::json::parse(r.out).at("items").as_array();
  EXPECT_EQ(items.size(), 2u);

  r = run("--json list --status done,running --roots-only --all --limit 1");
  items = boost::json::parse(r.out).at("items").as_array();
  EXPECT_EQ(items.size(), 4u);  // ord-4 is a child
  EXPECT_TRUE(boost::json::parse(r.out).at("next_cursor").is_null());

  r = run("list --limit 2");
  EXPECT_THAT(r.out, HasSubstr("more: --cursor "));
  const std::string cursor = r.out.substr(r.out.find("--cursor ") + 9, r.out.find("  (or") - r.out.find("--cursor ") - 9);
  r = run("--json list --limit 10 --cursor " + cursor);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(boost::json::parse(r.out).at("items").as_array().size(), 3u);
}

TEST_F(Harelctl, OutboxSpawnsTimersAndTrace) {
  populate();
  Ran r = run("outbox");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Paid"));
  EXPECT_THAT(r.out, HasSubstr("(none)"));
  r = run("--json outbox");
  const auto outbox = boost::json::parse(r.out).as_array();
  ASSERT_EQ(outbox.size(), 2u);
  EXPECT_EQ(outbox[0].at("event").at("data").at("amount").as_double(), 12.5);
  EXPECT_TRUE(outbox[1].at("target_id").is_null());

  r = run("spawns");
  EXPECT_THAT(r.out, HasSubstr("ord-0.Fork.A.0"));

  r = run("timers --due-at 1800000000");
  EXPECT_THAT(r.out, HasSubstr("Waiting"));
  EXPECT_THAT(r.out, HasSubstr("2025-12-02T10:00:00.250Z"));
  EXPECT_THAT(r.out, Not(HasSubstr("Later")));
  r = run("--json timers --all");
  EXPECT_EQ(boost::json::parse(r.out).as_array().size(), 2u);

  r = run("--json trace ord-0");
  const auto trace = boost::json::parse(r.out).as_array();
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].at("index").as_int64(), 0);
  EXPECT_EQ(trace[0].at("to_path").as_string(), "S0");
}

TEST_F(Harelctl, StoreComesFromTheEnvironment) {
  populate();
  const Ran r = shell(std::string("HAREL_STORE=sqlite:") + db_ + " " + HARELCTL_PATH + " --json list");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(boost::json::parse(r.out).at("items").as_array().size(), 5u);
}

// Bad input: one clear line on stderr, a non-zero exit, nothing written.
TEST_F(Harelctl, BadInputGivesOneClearLine) {
  populate();
  const struct {
    std::string args;
    std::string says;
  } cases[] = {
      {"show nobody", "no execution 'nobody'"},
      {"list --cursor garbage!!", "cursor"},
      {"list --status sleeping", "unknown status 'SLEEPING'"},
      {"create ord-0 --definition order", "execution 'ord-0' already exists"},
      {"create x --definition no-such-chart", "unknown definition 'no-such-chart'"},
      {"send nobody Pay", "no execution 'nobody'"},
      {"requeue", "name one parked message id, or --all"},
      {"create x --definition order --context '[1]'", "--context"},
      {"create x --definition order --context '{bad'", "--context"},
      {"create '' --definition order", "execution id must not be empty"},
  };
  for (const auto& c : cases) {
    const Ran r = run(c.args);
    EXPECT_NE(r.status, 0) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.says)) << c.args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << ": " << r.err;
  }
  EXPECT_EQ(boost::json::parse(run("--json list --all").out).at("items").as_array().size(), 5u);

  const Ran bad_store = shell(std::string(HARELCTL_PATH) + " --store nosuch:x list 2>&1");
  EXPECT_NE(bad_store.status, 0);
  EXPECT_THAT(bad_store.out, HasSubstr("unknown scheme 'nosuch'"));
}

TEST_F(Harelctl, WorksOnDynamoDBUrls) {
  const std::string endpoint = testing::dynamodb_local_endpoint();
  const std::string url =
      "'dynamodb://" + endpoint.substr(endpoint.find("//") + 2) + "?prefix=" + testing::unique_prefix("cli") + "'";
  auto on_dynamo = [&](const std::string& args) {
    return shell(std::string(HARELCTL_PATH) + " --store " + url + " " + args + " 2>&1");
  };
  EXPECT_EQ(on_dynamo("init").status, 0);
  EXPECT_EQ(on_dynamo("create d-1 --definition order").status, 0);
  Ran r = on_dynamo("--json list");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(boost::json::parse(r.out).at("items").as_array().size(), 1u);
  r = on_dynamo("--json demo --orders 10 --workers 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"ok\":true"), std::string::npos) << r.out;
  r = on_dynamo("show nobody");
  EXPECT_NE(r.status, 0);
  // A worker needs a transport, and DynamoDB has none by default: the error names the choices.
  r = on_dynamo("worker --once");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("--transport sqlite:PATH"));
  EXPECT_THAT(r.out, HasSubstr("memory:"));

  const Ran bad = shell(std::string(HARELCTL_PATH) + " --store 'dynamodb://127.0.0.1:1?prefix=bad prefix' list 2>&1");
  EXPECT_NE(bad.status, 0);
  EXPECT_THAT(bad.out, HasSubstr("prefix"));
}

// The fleet's commands on the embedded default: the SQLite transport lives in
// the store's own file.
TEST_F(Harelctl, CreateSendAndWorkerOnceRunAWorkflowThroughTheTransport) {
  ASSERT_EQ(run("create ledger --definition ledger").status, 0);
  ASSERT_EQ(run("create o-1 --definition order").status, 0);
  Ran r = run("send o-1 AddItem --event-id o-1:add");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("queued on sqlite:"));
  ASSERT_EQ(run("send o-1 Pay --data '{\"method\":\"card\"}' --event-id o-1:pay").status, 0);
  ASSERT_EQ(run("send o-1 Pay --data '{\"method\":\"card\"}' --event-id o-1:pay").status, 0);  // resent: a no-op

  // --once drains what is due; the order's timeout comes due shortly after.
  for (int i = 0; i < 50; ++i) {
    r = run("--json worker --once");
    ASSERT_EQ(r.status, 0) << r.err;
    if (boost::json::parse(run("--json show o-1").out).at("status").as_string() == "DONE") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto order = boost::json::parse(run("--json show o-1").out);
  EXPECT_EQ(order.at("outcome").as_string(), "success");
  EXPECT_EQ(order.at("processed_events").as_int64(), 5);  // AddItem, Pay once, Timeout, two Finished
  EXPECT_EQ(boost::json::parse(run("--json show ledger").out).at("context").at("orders").as_int64(), 1);
  EXPECT_EQ(boost::json::parse(run("--json outbox").out).as_array().size(), 0u);
  EXPECT_EQ(boost::json::parse(run("--json parked").out).as_array().size(), 0u);
}

// The poison scenario: an outbox row for an execution no worker knows, ahead of
// a valid row. The valid one is delivered; the poison one is kept, not lost,
// and holds back nobody.
TEST_F(Harelctl, APoisonRowNeverHoldsBackTheRowsBehindIt) {
  ASSERT_EQ(run("create ledger --definition ledger").status, 0);
  {
    SqliteStore store(db_);
    Execution stranger;
    stranger.id = "stranger";
    stranger.definition_id = "no-such-chart";
    store.save(stranger);
    Execution source;
    source.id = "source";
    source.definition_id = "order";
    Effects fx;
    fx.emits.push_back({"stranger", Event{"p-1", "Poke", std::nullopt, std::nullopt, {}, {}}});
    fx.emits.push_back({"ledger", Event{"p-2", "OrderDone", std::nullopt, std::nullopt, {}, {}}});
    store.commit(source, fx);
  }
  Ran r = run("relay");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("relayed: 2"));  // both handed to the transport
  r = run("--json worker --once");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto summary = boost::json::parse(r.out);
  EXPECT_EQ(summary.at("deferred").as_int64(), 1);
  EXPECT_EQ(summary.at("parked").as_int64(), 0);
  EXPECT_EQ(boost::json::parse(run("--json show ledger").out).at("context").at("orders").as_int64(), 1);
  r = run("outbox");
  EXPECT_THAT(r.out, HasSubstr("1 pending")) << r.out;  // kept in the transport for a worker that knows it
}

// The demo's workers as separate `harelctl worker` processes on the file's
// store and transport: their summaries add up to the run's.
TEST_F(Harelctl, DemoRunsItsWorkersAsProcesses) {
  Ran r = run("--json demo --orders 30 --processes 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto summary = boost::json::parse(r.out).as_object();
  EXPECT_TRUE(summary.at("ok").as_bool()) << r.out;
  EXPECT_EQ(summary.at("processes").as_int64(), 3);
  EXPECT_GT(summary.at("events").as_int64(), 0) << r.out;
  EXPECT_EQ(summary.at("duplicates").as_int64(), 0) << r.out;
  EXPECT_EQ(summary.at("parked").as_int64(), 0) << r.out;

  // Processes cannot share what lives in one process: the error names the choices.
  r = shell(std::string(HARELCTL_PATH) + " --store memory: demo --processes 2 2>&1");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("--transport sqlite:PATH"));
  r = run("--transport memory: demo --processes 2");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("transport 'memory:'"));
  r = run("demo --processes 2 --workers 4");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("each worker process runs one worker"));
}

TEST_F(Harelctl, HelpAndUnknownCommands) {
  Ran r = run("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* cmd : {"init", "list", "show", "trace", "outbox", "spawns", "timers", "worker", "parked", "requeue"})
    EXPECT_THAT(r.out, HasSubstr(cmd));
  r = run("list --help");
  EXPECT_THAT(r.out, HasSubstr("--roots-only"));
  r = run("frobnicate");
  EXPECT_NE(r.status, 0);
}

}  // namespace
}  // namespace harel
