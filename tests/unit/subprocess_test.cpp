#include "support/subprocess.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace rowbridge::testing {
namespace {

TEST(RunCommand, PassesLargeInputThroughWithoutDeadlock) {
  // More than any pipe buffer in both directions at once.
  std::string input(3 * 1024 * 1024, 'x');
  for (size_t i = 0; i < input.size(); i += 4099) input[i] = '\n';
  CommandResult result = RunCommand({"cat"}, input);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, input);
  EXPECT_EQ(result.err, "");
}

TEST(RunCommand, SeparatesStdoutStderrAndExitStatus) {
  CommandResult result = RunCommand({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
}

TEST(RunCommand, ReportsAProgramThatIgnoresItsInput) {
  CommandResult result = RunCommand({"true"}, std::string(1024 * 1024, 'y'));
  EXPECT_EQ(result.exit_code, 0);
}

TEST(RunCommand, ReportsDeathBySignal) {
  CommandResult result = RunCommand({"sh", "-c", "kill -9 $$"});
  EXPECT_EQ(result.exit_code, 128 + 9);
}

TEST(RunCommand, MissingProgramThrowsNamingIt) {
  try {
    RunCommand({"rowbridge-no-such-program", "--flag"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find("rowbridge-no-such-program --flag"), std::string::npos)
        << e.what();
  }
}

TEST(RunCommand, KillsAProgramThatOutlivesItsTimeout) {
  try {
    RunCommand({"sleep", "30"}, {}, std::chrono::seconds(1));
    FAIL() << "expected a timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTimeout);
  }
}

}  // namespace
}  // namespace rowbridge::testing
