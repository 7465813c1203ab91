// thrown<E>(f): runs f, which must throw E, and returns the exception so the
// test can look at it. Anything else is a test failure: another exception
// is reported with its message and re-raised; no exception at all raises.
#pragma once

#include <exception>
#include <stdexcept>

#include <gtest/gtest.h>

namespace harel::testing {

template <class E, class F>
E thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception: " << e.what();
    throw;
  }
  ADD_FAILURE() << "no exception";
  throw std::logic_error("the expected exception was not raised");
}

}  // namespace harel::testing
