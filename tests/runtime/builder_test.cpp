#include "harel/runtime/builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harel/errors.h"

namespace harel::runtime {
namespace {

namespace bj = boost::json;

// examples/order.json, written with the builder.
DefinitionBuilder order_builder() {
  DefinitionBuilder b("order");
  b.initial("Cart");
  b.state("Cart")
      .on("AddItem", {.target = "Cart", .actions = {{"increment", {{"field", "items"}}}}})
      .on("Pay", {.target = "Fulfil", .guard = {{"method", "card"}}, .actions = {{"merge_event_data", {}}}})
      .on("Pay", {.target = "Fulfil", .guard = {{"method", "voucher"}}, .actions = {{"merge_event_data", {}}}})
      .on("Cancel", "Cancelled");
  StateBuilder& fulfil = b.state("Fulfil")
                             .initial("AwaitingCarrier")
                             .on_enter("assign", {{"stage", "fulfilment"}})
                             .on_exit("assign", {{"stage", "closed"}});
  fulfil.state("AwaitingCarrier").timeout(0.05, "Shipping").on("CarrierAssigned", "Shipping").on("Cancel", "Cancelled");
  StateBuilder& shipping = fulfil.state("Shipping").on_done("Completed").on_failed("PaymentFailed");
  StateBuilder& pack = shipping.region("Pack").initial("Packing");
  pack.state("Packing").on_enter("assign", {{"packed", true}}).always("Packed");
  pack.state("Packed").final("success");
  StateBuilder& invoice = shipping.region("Invoice").initial("Invoicing");
  invoice.state("Invoicing").always({.target = "Invoiced", .guard = {{"method", "card"}}}).always("Declined");
  invoice.state("Invoiced").final("success");
  invoice.state("Declined").final("failed");
  b.state("Completed").final("success").on_enter(
      "emit", {{"target", "ledger"}, {"kind", "OrderDone"}, {"copy", bj::array{"items", "method"}}});
  b.state("PaymentFailed").final("failed");
  b.state("Cancelled").final("cancelled");
  return b;
}

TEST(DefinitionBuilder, BuildsTheSameModelAsTheJsonFile) {
  auto built = order_builder().build(builtin_actions());
  auto parsed = load_definition_file(std::string(HAREL_EXAMPLES_DIR) + "/order.json", builtin_actions());
  EXPECT_EQ(built->id(), parsed->id());
  EXPECT_EQ(built->states(), parsed->states());
}

TEST(DefinitionBuilder, WritesShortestJsonShapes) {
  DefinitionBuilder b("d");
  b.initial("A");
  b.state("A").on("Go", "B").on("Pay", {.target = "B", .guard = {{"ok", true}}}).on_enter("log");
  b.state("B").final("success");
  EXPECT_EQ(b.to_json(), (bj::object{{"id", "d"},
                                     {"initial", "A"},
                                     {"states",
                                      {{"A",
                                        {{"on", {{"Go", "B"}, {"Pay", {{"target", "B"}, {"guard", {{"ok", true}}}}}}},
                                         {"on_enter", bj::array{"log"}}}},
                                       {"B", {{"final", "success"}}}}}}));
}

TEST(DefinitionBuilder, ValidatesLikeTheParser) {
  DefinitionBuilder b("d");
  b.initial("A");
  b.state("A").on("Go", "Nowhere");
  try {
    b.build(builtin_actions());
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "definition 'd', state 'A': on 'Go': unknown target 'Nowhere'");
  }
  DefinitionBuilder unreachable("u");
  unreachable.initial("A");
  unreachable.state("A");
  unreachable.state("B").on_enter("assign", {{"x", 1}});
  EXPECT_THROW(unreachable.build(builtin_actions()), InvalidArgument);
}

}  // namespace
}  // namespace harel::runtime
