// The Transport contract suite, parameterized over transport factories.
//
// Every backend instantiates it once:
//   HAREL_INSTANTIATE_TRANSPORT_CONTRACT(Sqlite, sqlite_factory());
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "harel/transport/transport.h"

namespace harel::testing {

struct TransportFactory {
  std::string name;
  // A new, empty, isolated transport (own file / own queue) per call.
  std::function<std::unique_ptr<Transport>()> make;
};

// gtest prints parameters in test listings; a factory is known by its name.
inline void PrintTo(const TransportFactory& factory, std::ostream* os) { *os << factory.name; }

class TransportContract : public ::testing::TestWithParam<TransportFactory> {
 protected:
  void SetUp() override { transport_ = GetParam().make(); }
  void TearDown() override {
    if (transport_) transport_->close();
  }
  Transport& transport() { return *transport_; }

  std::unique_ptr<Transport> transport_;
};

inline std::string transport_factory_name(const ::testing::TestParamInfo<TransportFactory>& info) {
  return info.param.name;
}

}  // namespace harel::testing

#define HAREL_INSTANTIATE_TRANSPORT_CONTRACT(prefix, factory)                                      \
  INSTANTIATE_TEST_SUITE_P(prefix, TransportContract, ::testing::Values(factory), \
                           ::harel::testing::transport_factory_name)
