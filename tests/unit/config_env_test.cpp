#include <gtest/gtest.h>

#include <map>

#include "common/error.h"
#include "config/env_substitution.h"

namespace rowbridge::config {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string Expand(std::string_view text) {
  return SubstituteEnvironment(text, FakeEnv({{"PW", "s3cret"}, {"EMPTY", ""}, {"PORT", "3307"}}))
      .value;
}

std::string ExpandError(std::string_view text) {
  try {
    Expand(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << text;
  return "";
}

TEST(ConfigEnv, SubstitutesVariablesAndDefaults) {
  EXPECT_EQ(Expand("plain"), "plain");
  EXPECT_EQ(Expand("${PW}"), "s3cret");
  EXPECT_EQ(Expand("a${PW}b${PORT}c"), "as3cretb3307c");
  EXPECT_EQ(Expand("${MISSING:-fallback}"), "fallback");
  EXPECT_EQ(Expand("${MISSING:-}"), "");
  EXPECT_EQ(Expand("${EMPTY:-used when empty}"), "used when empty");
  EXPECT_EQ(Expand("${EMPTY}"), "");
  EXPECT_EQ(Expand("${PW:-unused}"), "s3cret");
  EXPECT_EQ(Expand("${MISSING:-a:-b}"), "a:-b");
}

TEST(ConfigEnv, DollarsWithoutBracesStay) {
  EXPECT_EQ(Expand("pa$$word$"), "pa$$word$");
  EXPECT_EQ(Expand("$PW"), "$PW");
  EXPECT_EQ(Expand("$${PW}"), "${PW}");
  EXPECT_EQ(Expand("$$${PW}"), "$${PW}");
}

TEST(ConfigEnv, EnvironmentValuesAreNotScannedAgain) {
  auto env = FakeEnv({{"A", "${B}"}, {"B", "no"}});
  EXPECT_EQ(SubstituteEnvironment("${A}", env).value, "${B}");
  EXPECT_EQ(SubstituteEnvironment("${X:-${B}", env).value, "${B");
}

TEST(ConfigEnv, TracksWhetherTheEnvironmentContributed) {
  auto env = FakeEnv({{"PW", "x"}});
  EXPECT_TRUE(SubstituteEnvironment("${PW}", env).from_environment);
  EXPECT_FALSE(SubstituteEnvironment("${NOPE:-x}", env).from_environment);
  EXPECT_FALSE(SubstituteEnvironment("plain", env).from_environment);
}

TEST(ConfigEnv, ErrorsNameTheVariable) {
  EXPECT_EQ(ExpandError("${MYSQL_PASSWORD}"),
            "environment variable MYSQL_PASSWORD is not set (set it, or give a default: "
            "${MYSQL_PASSWORD:-default})");
  EXPECT_EQ(ExpandError("x${db}"),
            "environment variable db is not set (the placeholders in a table rule's target are "
            "written {db}, without $)");
  EXPECT_EQ(ExpandError("abc${PW"),
            "\"${\" at character 4 has no closing \"}\" (write \"$${\" for a literal \"${\")");
  EXPECT_EQ(ExpandError("${}"),
            "\"${}\" is not a valid variable reference (names are letters, digits and _, not "
            "starting with a digit)");
  EXPECT_EQ(ExpandError("${1X}"),
            "\"${1X}\" is not a valid variable reference (names are letters, digits and _, not "
            "starting with a digit)");
  EXPECT_EQ(ExpandError("${PW-x}"),
            "\"${PW-x}\" is not a valid variable reference (use ${PW} or ${PW:-default})");
}

TEST(ConfigEnv, ProcessEnvironmentReadsGetenv) {
  ::setenv("ROWBRIDGE_CONFIG_ENV_TEST", "value", 1);
  EXPECT_EQ(ProcessEnvironment()("ROWBRIDGE_CONFIG_ENV_TEST"), "value");
  ::unsetenv("ROWBRIDGE_CONFIG_ENV_TEST");
  EXPECT_EQ(ProcessEnvironment()("ROWBRIDGE_CONFIG_ENV_TEST"), std::nullopt);
}

}  // namespace
}  // namespace rowbridge::config
