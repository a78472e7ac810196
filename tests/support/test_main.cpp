// The test binaries' main: gtest's, and a line naming the test that was running when the process
// aborts.
//
// ctest runs the unit tests as a few shards in brief mode (only failures are printed), and a shard
// that dies of an uncaught exception, a sanitizer report (abort_on_error) or a failed check would
// otherwise leave no trace of which of its two hundred tests it was in. The name is kept in a
// fixed buffer as each test starts, so the SIGABRT handler only has to write(2) it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

namespace {

char running_test[512];
volatile std::sig_atomic_t running_test_length = 0;

void Remember(const char* text, size_t& at) {
  const size_t length = std::min(std::strlen(text), sizeof running_test - 1 - at);
  std::memcpy(running_test + at, text, length);
  at += length;
}

class RunningTestRecorder : public testing::EmptyTestEventListener {
  void OnTestStart(const testing::TestInfo& test) override {
    running_test_length = 0;
    size_t at = 0;
    Remember("\n[ ABORTED  ] in test ", at);
    Remember(test.test_suite_name(), at);
    Remember(".", at);
    Remember(test.name(), at);
    Remember("\n", at);
    running_test_length = static_cast<std::sig_atomic_t>(at);
  }
  void OnTestEnd(const testing::TestInfo&) override { running_test_length = 0; }
};

void NameTheRunningTest(int signal) {
  const auto length = static_cast<size_t>(running_test_length);
  if (length > 0 && ::write(STDERR_FILENO, running_test, length) < 0) {
    // Nothing left to tell it to.
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  testing::UnitTest::GetInstance()->listeners().Append(new RunningTestRecorder);
  // SIGABRT only: the sanitizers keep their own SIGSEGV handlers, whose reports name the frames.
  std::signal(SIGABRT, NameTheRunningTest);
  return RUN_ALL_TESTS();
}
