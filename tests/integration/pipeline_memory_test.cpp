// Memory around big rows (issue: one 100 MB LONGBLOB row took rowbridge from 137 MB to 490 MB
// RSS, its update to 928 MB, the same row in three more tables to 1.34 GB, and none of it came
// back): every buffer a big row passes through gives its memory back once the row is written.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "common/error.h"
#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

// Resident memory of `pid` in MiB (VmRSS), or -1.
double ResidentMiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return -1;
}

class PipelineMemoryTest : public PipelineFixture {
 protected:
  PipelineMemoryTest() : PipelineFixture("rbm") {}
};

TEST_F(PipelineMemoryTest, BigRowsGiveTheirMemoryBackOnceWritten) {
  constexpr int kRowMiB = 40;
  // The servers' default max_allowed_packet (16 MiB on MariaDB) would refuse REPEAT's result.
  // The shared server's binlog gets 240 MiB here, in a file of its own: a start from a GTID
  // scans its file from the beginning, and other tests' starts must not scan these rows.
  RunMysqlSql(mysql_,
              "SET GLOBAL max_allowed_packet = 256 * 1024 * 1024; FLUSH BINARY LOGS;"
              "CREATE DATABASE `" +
                  source_db_ + "`");
  struct RotateAtEnd {
    const MysqlAddress& mysql;
    ~RotateAtEnd() {
      try {
        RunMysqlSql(mysql, "FLUSH BINARY LOGS");
      } catch (const Error&) {
        // The test failed already if the server is gone.
      }
    }
  } rotate_at_end{mysql_};
  std::string rules;
  for (const char* t : {"b1", "b2", "b3", "b4"}) {
    Sql(std::string("CREATE TABLE ") + t + " (id INT PRIMARY KEY, b LONGBLOB)");
    rules += "  - match: " + source_db_ + "." + t + "\n";
  }
  PipelineConfig config = Config(rules);
  // ASan keeps freed memory in a quarantine (256 MB by default) before giving it back; without
  // one, freed big blocks are unmapped at once, as glibc does for blocks of this size.
  const char* asan = std::getenv("ASAN_OPTIONS");
  config.environment.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") +
                               (asan && *asan ? ":" : "") + "quarantine_size_mb=0");
  TestDir dir("pipeline-memory");
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO b1 VALUES (0, 'small')");
  rb.WaitCaughtUp();
  std::this_thread::sleep_for(1s);
  const double before = ResidentMiB(rb.pid());
  ASSERT_GT(before, 0);

  const std::string big = "REPEAT('x', " + std::to_string(kRowMiB) + " * 1024 * 1024)";
  const std::string other = "REPEAT('y', " + std::to_string(kRowMiB) + " * 1024 * 1024)";
  Sql("INSERT INTO b1 VALUES (1, " + big + ")");
  Sql("UPDATE b1 SET b = " + other + " WHERE id = 1");
  for (const char* t : {"b2", "b3", "b4"})
    Sql(std::string("INSERT INTO ") + t + " VALUES (1, " + big + ")");
  rb.WaitCaughtUp(180s);
  for (const char* t : {"b1", "b2", "b3", "b4"}) {
    EXPECT_EQ(Ch("SELECT length(b) FROM " + Target(t) + " FINAL WHERE id = 1"),
              std::to_string(kRowMiB << 20))
        << t;
  }
  // Small rows after the big ones, in every table, and a heartbeat or two.
  for (const char* t : {"b1", "b2", "b3", "b4"})
    Sql(std::string("INSERT INTO ") + t + " VALUES (2, 'small')");
  rb.WaitCaughtUp();
  auto buffered = [&] { return rb.Metric("rowbridge_buffered_bytes").value_or(-1); };
  // Buffers a table keeps for its next batch are freed after 5 s without rows.
  EXPECT_TRUE(WaitFor([&] { return buffered() >= 0 && buffered() < (1 << 20); }, 20s))
      << buffered();
  // The source connection's buffer goes at a later packet (heartbeats come every second) once
  // the big packets are no longer recent: within two 5 s windows.
  double after = 0;
  const auto since = std::chrono::steady_clock::now();
  WaitFor([&] { return (after = ResidentMiB(rb.pid())) - before < kRowMiB * 0.75; }, 30s);
  std::printf(
      "rowbridge RSS: %.0f MiB before, %.0f MiB %.1f s after 5 rows of %d MiB were written\n",
      before, after,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count(), kRowMiB);
  // Each of the five rows passed through a packet buffer, a batch and an INSERT: keeping any
  // one of those buffers is 40 MiB or more.
  EXPECT_LT(after - before, kRowMiB * 0.75) << "before " << before << " MiB, after " << after;
  EXPECT_EQ(rb.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
