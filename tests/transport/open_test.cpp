// open_transport: which URL opens which transport, and what is refused.
#include "harel/transport/open.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harel/errors.h"
#include "harel/transport/memory_transport.h"
#include "harel/transport/sqlite_transport.h"
#include "support/temp_dir.h"
#include "support/thrown.h"

namespace harel::testing {
namespace {

using ::testing::HasSubstr;

TEST(OpenTransport, MemoryOpensANewMemoryTransport) {
  const auto t = open_transport("memory:");
  EXPECT_NE(dynamic_cast<MemoryTransport*>(t.get()), nullptr);
  EXPECT_EQ(open_transport("memory:")->backlog().pending, 0);
}

TEST(OpenTransport, SqliteOpensTheFileNamed) {
  TempDir dir;
  const std::string path = dir.file("queue.db");
  open_transport("sqlite:" + path)->publish("g", Event{"e1", "Go", {}, {}, {}, {}});
  const auto t = open_transport("sqlite:" + path);
  ASSERT_NE(dynamic_cast<SqliteTransport*>(t.get()), nullptr);
  EXPECT_EQ(dynamic_cast<SqliteTransport&>(*t).path(), path);
  EXPECT_EQ(t->backlog().pending, 1);
}

TEST(OpenTransport, BadUrlsAreInvalidArguments) {
  EXPECT_THAT(thrown<InvalidArgument>([] { open_transport("sqs:queue"); }).what(),
              HasSubstr("known: sqlite:PATH, memory:"));
  EXPECT_THAT(thrown<InvalidArgument>([] { open_transport("sqlite:"); }).what(), HasSubstr("names no file"));
  EXPECT_THAT(thrown<InvalidArgument>([] { open_transport("memory:?x=1"); }).what(), HasSubstr("'x'"));
  thrown<InvalidArgument>([] { open_transport("no-scheme"); });
}

}  // namespace
}  // namespace harel::testing
