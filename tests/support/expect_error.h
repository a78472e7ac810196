// Catching the rowbridge::Error a call is expected to throw, to check its code and message.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"

namespace rowbridge::testing {

// Runs `fn`, expecting it to throw rowbridge::Error, and returns that error. If it returns
// normally the test fails and an Error(kInternal, "no error") comes back.
template <typename Fn>
Error ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a rowbridge::Error";
  return Error(ErrorCode::kInternal, "no error");
}

// The code of the Error `fn` throws (kInternal, and a failed test, if none), and its message in
// *message if asked.
template <typename Fn>
ErrorCode CodeOf(Fn&& fn, std::string* message = nullptr) {
  Error e = ErrorOf(std::forward<Fn>(fn));
  if (message != nullptr) *message = e.what();
  return e.code();
}

}  // namespace rowbridge::testing
