// harel_microbench: the client-side costs that harel_bench's figures are
// made of, each measured alone — warm caches, no sockets, no server sharing
// the cores (Google Benchmark; scripts/bench.sh --micro runs it).
//
// harel_bench says what an operation costs against a real server; this says
// which part of the client spends it: writing a request (body, token,
// SigV4), interpreting an answer, decoding or writing an execution's JSON,
// and whole store operations with the network stubbed out — a client that
// writes every request as HttpDynamoClient does and answers it locally with
// DynamoDB's answer text, which the store then reads as it would the
// server's.
#include <benchmark/benchmark.h>

#include <functional>

#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>

#include "capture_client.h"
#include "data.h"
#include "dynamodb/protocol.h"
#include "dynamodb/request_writer.h"
#include "harel/model/codec.h"
#include "harel/store/async_dynamodb_store.h"
#include "harel/store/dynamodb_store.h"

namespace harel::bench {
namespace {

namespace bj = boost::json;

dynamodb::Settings local_settings() {
  dynamodb::Settings s;
  s.endpoint = dynamodb::Endpoint::parse("http://127.0.0.1:8000");
  s.region = "us-east-1";
  s.credentials.access_key_id = "AKIDEXAMPLE";
  s.credentials.secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  return s;
}

// The records and requests of the benchmark's update workload.
struct Fixture {
  Fixture() {
    exe = data.execution("exe-000001");
    effects = data.step_effects(exe, "ev-1");
    auto capture = std::make_shared<CaptureClient>(nullptr);
    DynamoDBStore store(capture, {});
    Execution first = exe;
    store.commit(first, {});  // the insert
    const std::vector<CapturedCall> insert = capture->take();
    item = insert.back().request.at("TransactItems").as_array()[0].at("Put").at("Item").as_object();
    store.commit(first, effects);  // an update: seq reservation, then the transaction
    update = capture->take();
    get_item = {{"TableName", "harel_executions"}, {"Key", {{"id", {{"S", exe.id}}}}}, {"ConsistentRead", true}};
  }

  DataGenerator data{1};
  Execution exe;
  Effects effects;
  bj::object item;                   // the execution's item, as stored
  std::vector<CapturedCall> update;  // UpdateItem, TransactWriteItems
  bj::object get_item;
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

// Everything a DynamoClient does but the socket: each request is written
// (serialized and signed) and each answer interpreted from its text —
// DynamoDB's answer on success, made up locally, and the fixture's
// execution for a GetItem.
class StubbedNetworkClient final : public dynamodb::DynamoClient {
 public:
  explicit StubbedNetworkClient(boost::asio::io_context& io)
      : io_(io),
        writer_(local_settings(), "harel-bench"),
        get_item_answer_(bj::serialize(bj::object{{"Item", fixture().item}})) {}

  bj::value call(std::string_view operation, const bj::object& request) override {
    benchmark::DoNotOptimize(writer_.write(operation, request));
    const std::string answer =
        operation == "GetItem" ? get_item_answer_ : bj::serialize(answers_.answer(operation, request));
    dynamodb::protocol::Interpreted r = dynamodb::protocol::interpret(200, answer, "", "");
    if (r.error) std::rethrow_exception(r.error);
    return std::move(r.response);
  }
  boost::asio::any_io_executor executor() const override { return io_.get_executor(); }

 private:
  boost::asio::io_context& io_;
  dynamodb::RequestWriter writer_;
  std::string get_item_answer_;
  LocalAnswers answers_{1000};
};

void BM_WriteRequest_GetItem(benchmark::State& state) {
  dynamodb::RequestWriter writer(local_settings(), "harel-bench");
  for (auto _ : state) benchmark::DoNotOptimize(writer.write("GetItem", fixture().get_item));
}
BENCHMARK(BM_WriteRequest_GetItem);

void BM_WriteRequest_UpdateTransaction(benchmark::State& state) {
  dynamodb::RequestWriter writer(local_settings(), "harel-bench");
  const CapturedCall& transaction = fixture().update.back();
  for (auto _ : state) benchmark::DoNotOptimize(writer.write(transaction.operation, transaction.request));
}
BENCHMARK(BM_WriteRequest_UpdateTransaction);

void BM_ClientRequestToken(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(dynamodb::protocol::new_client_request_token());
}
BENCHMARK(BM_ClientRequestToken);

// Interpreting a Query answer of `items` executions (1: a GetItem's size).
void BM_InterpretAnswer(benchmark::State& state) {
  bj::array items;
  for (std::int64_t i = 0; i < state.range(0); ++i) items.push_back(fixture().item);
  const std::string answer =
      bj::serialize(bj::object{{"Items", std::move(items)}, {"Count", state.range(0)}, {"ScannedCount", state.range(0)}});
  for (auto _ : state) benchmark::DoNotOptimize(dynamodb::protocol::interpret(200, answer, "", ""));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * answer.size()));
}
BENCHMARK(BM_InterpretAnswer)->Arg(1)->Arg(100);

void BM_ParseExecution(benchmark::State& state) {
  const std::string text = to_json(fixture().exe);
  for (auto _ : state) benchmark::DoNotOptimize(parse_execution(text));
}
BENCHMARK(BM_ParseExecution);

void BM_ParseExecutionSummary(benchmark::State& state) {
  const std::string text = to_json(fixture().exe);
  for (auto _ : state) benchmark::DoNotOptimize(parse_execution_summary(text));
}
BENCHMARK(BM_ParseExecutionSummary);

void BM_ExecutionToJson(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(to_json(fixture().exe));
}
BENCHMARK(BM_ExecutionToJson);

// Runs `start` once per iteration, each after the previous one completed,
// all within one io_context::run(): restarting the loop for every operation
// would add a system call (epoll_wait) per operation that no real event
// loop pays.
void run_chained(benchmark::State& state, boost::asio::io_context& io,
                 const std::function<void(std::function<void()> next)>& start) {
  std::function<void()> next = [&] {
    if (state.KeepRunning()) start(next);
  };
  next();
  io.run();
}

// A worker's step (the update workload's operation) through DynamoDBStore,
// with the network stubbed out: the store's work plus writing its two
// requests and reading their answers.
void BM_Commit_Sync(benchmark::State& state) {
  boost::asio::io_context io;
  DynamoDBStore store(std::make_shared<StubbedNetworkClient>(io), {});
  Execution exe = fixture().exe;
  store.commit(exe, {});
  for (auto _ : state) {
    ++exe.processed_events;
    store.commit(exe, fixture().effects);
  }
}
BENCHMARK(BM_Commit_Sync);

// The same through AsyncDynamoDBStore, one operation at a time.
void BM_Commit_Async(benchmark::State& state) {
  boost::asio::io_context io;
  auto client = std::make_shared<StubbedNetworkClient>(io);
  AsyncDynamoDBStore store(client, {});
  Execution exe = fixture().exe;
  DynamoDBStore(client, {}).commit(exe, {});
  run_chained(state, io, [&](std::function<void()> next) {
    ++exe.processed_events;
    store.async_commit(exe, fixture().effects, [next = std::move(next)](std::exception_ptr e, CommitReceipt) {
      if (e) std::rethrow_exception(e);
      next();
    });
  });
}
BENCHMARK(BM_Commit_Async);

// A load with the network stubbed out: writing the GetItem, reading its
// answer, decoding the execution.
void BM_Load_Sync(benchmark::State& state) {
  boost::asio::io_context io;
  DynamoDBStore store(std::make_shared<StubbedNetworkClient>(io), {});
  for (auto _ : state) benchmark::DoNotOptimize(store.load(fixture().exe.id));
}
BENCHMARK(BM_Load_Sync);

// The same through AsyncDynamoDBStore.
void BM_Load_Async(benchmark::State& state) {
  boost::asio::io_context io;
  AsyncDynamoDBStore store(std::make_shared<StubbedNetworkClient>(io), {});
  run_chained(state, io, [&](std::function<void()> next) {
    store.async_load(fixture().exe.id, [next = std::move(next)](std::exception_ptr e, std::optional<Execution> exe) {
      if (e) std::rethrow_exception(e);
      benchmark::DoNotOptimize(exe);
      next();
    });
  });
}
BENCHMARK(BM_Load_Async);

}  // namespace
}  // namespace harel::bench

BENCHMARK_MAIN();
