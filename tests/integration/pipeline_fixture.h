// PipelineFixture: the frame every `rowbridge run` test shares. It needs real servers (the test is
// skipped, loudly, without them), gives each test its own source and target database (both
// dropped afterwards), writes configs for them, and starts rowbridge up to its first checkpoint.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {

// `text` without its trailing newlines and spaces (the command-line clients end with one).
std::string Trimmed(std::string text);

class PipelineFixture : public ::testing::Test {
 protected:
  // `prefix` starts the databases' names (each test gets unique ones).
  explicit PipelineFixture(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override;
  void TearDown() override;

  // A config for the test's databases with `rules` (YAML list items under `tables:`), connecting
  // as the replication user, with a server_id no other test uses.
  PipelineConfig Config(const std::string& rules) const;

  // Starts rowbridge and waits for its first checkpoint (changes before it are not replicated).
  void StartAndWaitForCheckpoint(RowbridgeProcess& rb);

  MysqlAddress mysql_;
  ClickHouseAddress ch_;
  std::string source_db_;
  std::string target_db_;

 private:
  std::string prefix_;
};

}  // namespace rowbridge::testing
