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

  // Runs `sql` in the source database.
  void Sql(const std::string& sql);
  // Runs `sql` on ClickHouse and returns its output, Trimmed.
  std::string Ch(const std::string& sql);
  // `target_db`.`table`
  std::string Target(const std::string& table) const;

  // The bytes of the checkpoint file a file state store (PipelineConfig::file_state) of `rb`
  // saved, to put back later with RestoreCheckpointFile: a crash before the next checkpoint.
  std::string ReadCheckpointFile(const RowbridgeProcess& rb) const;
  void RestoreCheckpointFile(const RowbridgeProcess& rb, const std::string& bytes) const;
  // Deletes the rows of the target table `table` that match `condition` (a ClickHouse mutation)
  // and waits until the mutation is done.
  void DeleteTargetRows(const std::string& table, const std::string& condition);

  // A key change split over two batches: the source table t (id INT PRIMARY KEY, v INT) under a
  // `mode` rule, every row its own batch, a file state store. Start `rb` (made with that config)
  // with StartAndKeyMove: it waits for the first checkpoint, keeps its bytes (returned), moves
  // key 1 to 2, waits until that is replicated and stops rowbridge.
  PipelineConfig KeyMoveConfig(const std::string& mode);
  std::string StartAndKeyMove(RowbridgeProcess& rb);

  MysqlAddress mysql_;
  ClickHouseAddress ch_;
  std::string source_db_;
  std::string target_db_;

 private:
  std::string prefix_;
};

// A PipelineFixture whose source is a server of the suite's own, started once for the suite with
// the options `Suite::ServerOptions()` returns (server settings the shared server must not change
// under the suites running beside it). The suite derives from PrivateSourceFixture<Suite>.
template <typename Suite>
class PrivateSourceFixture : public PipelineFixture {
 protected:
  using PipelineFixture::PipelineFixture;

  static void SetUpTestSuite() {
    if (!MissingMysqlEnv().empty() || !MissingClickHouseEnv().empty()) return;
    server_ = new ScopedMariaDb(Suite::ServerOptions());
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    PipelineFixture::SetUp();
    if (::testing::Test::IsSkipped()) return;
    mysql_ = server_->address();
  }

  static inline ScopedMariaDb* server_ = nullptr;
};

}  // namespace rowbridge::testing
