// `rowbridge run` against a source with binlog_row_metadata=FULL, where every TABLE_MAP carries
// column names, signedness (with its flavor's quirks: MariaDB counts YEAR in the bitmap), charsets
// and ENUM/SET labels, and rowbridge checks them against its schema history. The workload's
// every_type table (one column of each type) and its replica and changelog tables must come out
// exactly equal, with no table stopped over a metadata mismatch, on every source flavor.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "integration/pipeline_workload.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineFullMetadata : public PrivateSourceFixture<PipelineFullMetadata> {
 public:
  static std::vector<std::string> ServerOptions() { return {"--binlog-row-metadata=FULL"}; }

 protected:
  PipelineFullMetadata() : PrivateSourceFixture("rbfull") {}

  void SetUp() override {
    PrivateSourceFixture::SetUp();
    if (::testing::Test::IsSkipped()) return;
    ASSERT_EQ(Trimmed(RunMysqlSql(mysql_, "SELECT @@global.binlog_row_metadata")), "FULL");
  }
};

TEST_F(PipelineFullMetadata, EveryTypeStreamsExactlyWithFullTableMaps) {
  TestDir dir("pipeline-full-metadata");
  Workload workload(20261202, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  RowbridgeProcess rb(dir.path(), Config(WorkloadRules(source_db_)));
  StartAndWaitForCheckpoint(rb);
  for (int i = 0; i < 4; ++i) RunMysqlSql(mysql_, workload.Next(40));
  RunMysqlSql(mysql_, workload.BigTransaction(200));
  rb.WaitCaughtUp();
  ExpectWorkloadReplicated(mysql_, ch_, source_db_, target_db_, workload);
  EXPECT_EQ(rb.log().find("stopped replicating"), std::string::npos) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// Schema changes under full table maps: every TABLE_MAP after an ALTER carries the new names,
// signedness, charsets and labels, and must agree with the schema history at its position, also
// when the stream reads the ALTERs a second time from an older checkpoint (a crash), over
// ClickHouse tables that already have them. The types the flavors mark oddly in the signedness
// bitmap (YEAR on MariaDB, BOOL on MySQL) are added and changed.
TEST_F(PipelineFullMetadata, SchemaChangesOfEveryKindKeepTypesExact) {
  TestDir dir("pipeline-full-metadata-ddl");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE ft (id INT PRIMARY KEY, flag BOOL, y YEAR, e ENUM('a','b'), s SET('x','y'), "
      "u INT UNSIGNED, b BIT(3), dd DECIMAL(8,3), vc VARCHAR(10) CHARACTER SET latin1, "
      "t TINYINT UNSIGNED) DEFAULT CHARSET=utf8mb4;"
      "INSERT INTO ft VALUES (1, TRUE, 2001, 'a', 'x,y', 4000000000, b'101', 12345.678, "
      "X'636166E9', 255), (2, FALSE, NULL, 'b', '', 0, b'0', -1.5, '', 0);");
  PipelineConfig config = Config("  - match: " + source_db_ + ".ft\n    mode: replica\n");
  config.file_state = true;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO ft VALUES (3, TRUE, 1999, 'b', 'y', 1, b'11', 0.001, 'x', 128);");
  rb.WaitCaughtUp();
  const std::string before_the_alters = ReadCheckpointFile(rb);

  Sql("ALTER TABLE ft ADD COLUMN flag2 BOOLEAN NOT NULL DEFAULT TRUE, ADD COLUMN y2 YEAR DEFAULT "
      "2024;"
      "INSERT INTO ft (id, flag, y, e, s, u, b, dd, vc, t, flag2, y2) VALUES (4, FALSE, 2155, 'a', "
      "'x', 7, b'1', 1, 'v', 1, FALSE, 1901);"
      "ALTER TABLE ft MODIFY e ENUM('a','b','c'), MODIFY s SET('x','y','z');"
      "INSERT INTO ft (id, e, s) VALUES (5, 'c', 'x,z');"
      "ALTER TABLE ft MODIFY u BIGINT UNSIGNED, CHANGE b b2 BIT(10), MODIFY dd DECIMAL(12,4), "
      "MODIFY vc VARCHAR(20) CHARACTER SET utf8mb4, MODIFY t SMALLINT;"
      "INSERT INTO ft (id, u, b2, dd, vc, t) VALUES (6, 18446744073709551615, b'1111111111', "
      "-12345678.1234, X'C3A974C3A9', -300);"
      "ALTER TABLE ft MODIFY flag TINYINT UNSIGNED, MODIFY y SMALLINT;"
      "INSERT INTO ft (id, flag, y) VALUES (7, 200, -5);"
      "UPDATE ft SET flag2 = NOT flag2, y2 = y2 + 1, e = 'c' WHERE id <= 3;"
      "DELETE FROM ft WHERE id = 2;");
  rb.WaitCaughtUp();
  const std::vector<ColumnCompare> columns = {{"id"},
                                              {"flag"},
                                              {"y"},
                                              {"e"},
                                              {"s"},
                                              {"u"},
                                              {"b2", Compare::kBitNumber},
                                              {"dd"},
                                              {"vc", Compare::kHex},
                                              {"t"},
                                              {"flag2"},
                                              {"y2"}};
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "ft", columns, "id"),
            MysqlRows(mysql_, source_db_, "ft", columns, "id"));
  rb.Kill();

  RestoreCheckpointFile(rb, before_the_alters);
  rb.Start();
  Sql("INSERT INTO ft (id, flag, y, e, s, b2, vc, t, flag2, y2) VALUES (8, 1, 2000, 'c', 'z', "
      "b'1000000000', X'C3A9', 7, FALSE, 2000);");
  rb.WaitCaughtUp();
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "ft", columns, "id"),
            MysqlRows(mysql_, source_db_, "ft", columns, "id"));
  EXPECT_EQ(rb.log().find("stopped replicating"), std::string::npos) << rb.log();
  EXPECT_TRUE(rb.SavedCheckpoint()->stopped_tables.empty()) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

}  // namespace
}  // namespace rowbridge::testing
