// The ExecutionStore contract suite, parameterized over store factories.
//
// Every backend instantiates it once:
//   HAREL_INSTANTIATE_STORE_CONTRACT(Sqlite, sqlite_factory());
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "harel/store/execution_store.h"

namespace harel::testing {

struct StoreFactory {
  std::string name;
  // A new, empty, isolated store (own file / own table prefix) per call.
  std::function<std::unique_ptr<ExecutionStore>()> make;
  // Overwrites the stored `data` of execution `id` with `raw`, bypassing the
  // store's checks; empty for a backend without a storage format to corrupt.
  std::function<void(ExecutionStore& store, const std::string& id, const std::string& raw)> corrupt;
  // Whether the server applies concurrent conditional transactions
  // atomically. moto_server does not: its TransactWriteItems deep-copies the
  // tables first and, when a condition fails, puts that copy back — undoing
  // whatever a concurrent request committed meanwhile (a reported success
  // then vanishes). Concurrency is asserted against the servers that do.
  bool atomic_under_concurrency = true;
};

// gtest prints parameters in test listings; a factory is known by its name.
inline void PrintTo(const StoreFactory& factory, std::ostream* os) { *os << factory.name; }

class StoreContract : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override { store_ = GetParam().make(); }
  void TearDown() override {
    if (store_) store_->close();
  }
  ExecutionStore& store() { return *store_; }

  std::unique_ptr<ExecutionStore> store_;
};

// The listing contract: a fixture with 12 executions already saved.
class ListingContract : public StoreContract {
 protected:
  void SetUp() override;
  // Pages through everything matching `query`; the ids seen, as a set.
  std::set<std::string> collect(ListQuery query);
};

inline std::string factory_name(const ::testing::TestParamInfo<StoreFactory>& info) { return info.param.name; }

}  // namespace harel::testing

// Runs the whole contract (StoreContract + ListingContract) over one factory.
#define HAREL_INSTANTIATE_STORE_CONTRACT(prefix, factory)                                                  \
  INSTANTIATE_TEST_SUITE_P(prefix, StoreContract, ::testing::Values(factory), ::harel::testing::factory_name); \
  INSTANTIATE_TEST_SUITE_P(prefix, ListingContract, ::testing::Values(factory), ::harel::testing::factory_name)
