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

}  // namespace
}  // namespace rowbridge::testing
