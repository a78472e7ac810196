#include "integration/pipeline_fixture.h"

#include <chrono>

#include "common/error.h"

namespace rowbridge::testing {

using namespace std::chrono_literals;

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

void PipelineFixture::SetUp() {
  ROWBRIDGE_REQUIRE_MYSQL();
  ROWBRIDGE_REQUIRE_CLICKHOUSE();
  mysql_ = MysqlFromEnv();
  ch_ = ClickHouseFromEnv();
  source_db_ = UniqueName(prefix_ + "_src");
  target_db_ = UniqueName(prefix_ + "_dst");
}

void PipelineFixture::TearDown() {
  if (mysql_.port == 0) return;
  try {
    RunMysqlSql(mysql_, "DROP DATABASE IF EXISTS `" + source_db_ + "`");
    RunClickHouseSql(ch_, "DROP DATABASE IF EXISTS `" + target_db_ + "`");
  } catch (const Error&) {
    // Best effort: a server the test stopped on purpose may still be down.
  }
}

PipelineConfig PipelineFixture::Config(const std::string& rules) const {
  PipelineConfig c;
  c.mysql = mysql_;
  c.source_user = mysql_.repl_user;
  c.source_password = mysql_.repl_password;
  c.clickhouse = ch_;
  c.target_database = target_db_;
  c.tables_yaml = rules;
  c.server_id = UniqueServerId();
  return c;
}

void PipelineFixture::StartAndWaitForCheckpoint(RowbridgeProcess& rb) {
  rb.Start();
  ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s))
      << "no checkpoint was saved; log:\n"
      << rb.log();
}

}  // namespace rowbridge::testing
