#include "dynamodb/protocol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <string>

#include <boost/json/parse.hpp>

#include "harel/dynamodb/errors.h"
#include "harel/errors.h"

namespace harel::dynamodb::protocol {
namespace {

namespace json = boost::json;
using ::testing::MatchesRegex;

template <class E>
E error_of(const Interpreted& r) {
  try {
    std::rethrow_exception(r.error);
  } catch (const E& e) {
    return e;
  }
}

TEST(Protocol, SuccessIsTheDocument) {
  const Interpreted r = interpret(200, R"({"Item":{"id":{"S":"a"}}})", "rid", "");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.response, json::parse(R"({"Item":{"id":{"S":"a"}}})"));
  const Interpreted empty = interpret(200, "{}", "", "");
  EXPECT_EQ(empty.response, json::object());
}

TEST(Protocol, ErrorResponseBecomesATypedError) {
  const Interpreted r = interpret(
      400,
      R"({"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed"})",
      "REQ123", "");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.kind, FailureKind::Fatal);
  const DynamoError e = error_of<DynamoError>(r);
  EXPECT_EQ(e.backend(), "dynamodb");
  EXPECT_EQ(e.code(), "ConditionalCheckFailedException");
  EXPECT_EQ(e.service_message(), "The conditional request failed");
  EXPECT_EQ(e.http_status(), 400);
  EXPECT_FALSE(e.retryable());
  EXPECT_EQ(e.request_id(), "REQ123");
  EXPECT_STREQ(e.what(),
               "dynamodb error ConditionalCheckFailedException (HTTP 400): The conditional request failed");
}

TEST(Protocol, TransactionCancellationKeepsItsReasons) {
  const Interpreted r = interpret(
      400,
      R"({"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]","CancellationReasons":[{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"},{"Code":"None"}]})",
      "", "");
  const DynamoError e = error_of<DynamoError>(r);
  EXPECT_EQ(e.code(), "TransactionCanceledException");
  EXPECT_FALSE(e.retryable());
  EXPECT_EQ(e.body().at("CancellationReasons").as_array().at(0).at("Code"), "ConditionalCheckFailed");
  EXPECT_THAT(e.service_message(), ::testing::HasSubstr("ConditionalCheckFailed"));
}

TEST(Protocol, ThrottlingAndServerErrorsAreRetryable) {
  const Interpreted t = interpret(
      400, R"({"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow"})",
      "", "");
  EXPECT_EQ(t.kind, FailureKind::Throttle);
  EXPECT_TRUE(error_of<DynamoError>(t).retryable());
  const Interpreted s = interpret(500, R"({"__type":"com.amazon.coral.service#InternalFailure"})", "", "");
  EXPECT_EQ(s.kind, FailureKind::Transient);
  EXPECT_EQ(error_of<DynamoError>(s).code(), "InternalFailure");
}

TEST(Protocol, NonJsonErrorsAndHeaderCodes) {
  const Interpreted proxy = interpret(502, "<html>Bad\nGateway</html>", "", "");
  const DynamoError e = error_of<DynamoError>(proxy);
  EXPECT_EQ(e.code(), "HTTP502");
  EXPECT_EQ(e.service_message(), "<html>Bad Gateway</html>");
  EXPECT_EQ(proxy.kind, FailureKind::Transient);
  const Interpreted header = interpret(400, "", "", "ThrottlingException:http://internal.amazon.com/coral/");
  EXPECT_EQ(error_of<DynamoError>(header).code(), "ThrottlingException");
  EXPECT_EQ(header.kind, FailureKind::Throttle);
}

TEST(Protocol, GarbledSuccessIsARetryableTransportError) {
  const Interpreted r = interpret(200, R"({"Item":)", "", "");
  EXPECT_EQ(r.kind, FailureKind::Transient);
  EXPECT_EQ(error_of<TransportError>(r).code(), "MalformedResponse");
}

TEST(Protocol, TransactWriteItemsGetsAClientRequestToken) {
  const json::object req = json::parse(R"({"TransactItems":[]})").as_object();
  const json::object a = json::parse(request_body("TransactWriteItems", req)).as_object();
  const json::object b = json::parse(request_body("TransactWriteItems", req)).as_object();
  const std::string token(a.at("ClientRequestToken").as_string());
  EXPECT_THAT(token, MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
  EXPECT_NE(token, b.at("ClientRequestToken").as_string());  // one per call
  EXPECT_EQ(a.at("TransactItems"), json::array());
  EXPECT_FALSE(req.contains("ClientRequestToken"));  // the caller's object is untouched

  EXPECT_TRUE(json::parse(request_body("TransactWriteItems", {})).as_object().contains("ClientRequestToken"));
  const json::object own = json::parse(R"({"ClientRequestToken":"mine","TransactItems":[]})").as_object();
  EXPECT_EQ(json::parse(request_body("TransactWriteItems", own)).at("ClientRequestToken"), "mine");
  EXPECT_FALSE(json::parse(request_body("PutItem", req)).as_object().contains("ClientRequestToken"));
}

TEST(Protocol, ClientRequestTokensAreDistinctUuidsAcrossRefills) {
  // Tokens are drawn in batches of 64: 1000 of them cross many refills.
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string token = new_client_request_token();
    ASSERT_THAT(token, MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
    ASSERT_TRUE(seen.insert(token).second) << "token " << i << " repeats: " << token;
  }
}

// The token a child process draws first, the child made by `make_child`
// (which returns 0 in the child, like fork).
template <class MakeChild>
std::string first_token_of_a_child(MakeChild make_child) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "no pipe";
  const pid_t child = make_child();
  if (child == 0) {
    const std::string token = new_client_request_token();
    const bool written = write(pipe_fds[1], token.data(), token.size()) == static_cast<ssize_t>(token.size());
    _exit(written ? 0 : 1);
  }
  close(pipe_fds[1]);
  char buffer[36];
  const ssize_t got = child > 0 ? read(pipe_fds[0], buffer, sizeof buffer) : -1;
  close(pipe_fds[0]);
  int status = 0;
  const bool exited = child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!exited || got != static_cast<ssize_t>(sizeof buffer)) return "no token from the child";
  return std::string(buffer, sizeof buffer);
}

// Tokens are drawn in batches. Were a child to keep its parent's batch, its
// first token would be the parent's next one, and DynamoDB would take the
// second of two different transactions for a retry of the first.
void expect_child_tokens_unlike_parents(const std::string& childs) {
  ASSERT_THAT(childs, MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
  for (int i = 0; i < 64; ++i) EXPECT_NE(new_client_request_token(), childs) << "parent's token " << i;
}

TEST(Protocol, AForkedChildDoesNotReuseItsParentsTokens) {
  new_client_request_token();  // the parent has a batch, one token of it used
  expect_child_tokens_unlike_parents(first_token_of_a_child([] { return fork(); }));
}

TEST(Protocol, AChildForkedWithoutForkHandlersDoesNotReuseItsParentsTokens) {
  // The raw system call skips pthread_atfork handlers, as _Fork() and
  // clone() do: the batch must be emptied by the kernel, not by a handler.
#ifdef SYS_fork
  new_client_request_token();
  expect_child_tokens_unlike_parents(first_token_of_a_child([] { return static_cast<pid_t>(syscall(SYS_fork)); }));
#else
  GTEST_SKIP() << "no fork system call on this architecture";
#endif
}

TEST(Protocol, OperationNamesAreChecked) {
  EXPECT_NO_THROW(check_operation("GetItem"));
  for (const char* bad : {"", "Get Item", "GetItem\r\nX-Evil: 1", "Get.Item"})
    EXPECT_THROW(check_operation(bad), InvalidArgument);
}

}  // namespace
}  // namespace harel::dynamodb::protocol
