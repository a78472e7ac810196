#include <gtest/gtest.h>

#include "mysql/source_check.h"

namespace rowbridge::mysql {
namespace {

SourceFacts GoodMariaDb() {
  SourceFacts f;
  f.flavor = Flavor::kMariaDb;
  f.log_bin = "1";
  f.binlog_format = "ROW";
  f.binlog_row_image = "FULL";
  f.binlog_checksum = "CRC32";
  f.source_server_id = 1;
  f.grants = {"GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO `rb`@`%`"};
  f.replicas = std::vector<SourceFacts::Replica>{};
  return f;
}

TEST(MysqlSourceCheck, GoodSourcePasses) {
  SourceCheckResult r = EvaluateSource(GoodMariaDb(), 100);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.notes.empty());
}

TEST(MysqlSourceCheck, ReportsEveryProblemAtOnceNamingTheSetting) {
  SourceFacts f = GoodMariaDb();
  f.flavor = Flavor::kMysql;
  f.log_bin = "OFF";
  f.binlog_format = "STATEMENT";
  f.binlog_row_image = "MINIMAL";
  f.grants = {"GRANT SELECT ON *.* TO `rb`@`%`",
              "GRANT REPLICATION SLAVE ON `db`.* TO `rb`@`%`"};  // not global: does not count
  f.replicas = std::vector<SourceFacts::Replica>{{100, "other"}};
  SourceCheckResult r = EvaluateSource(f, 100);
  ASSERT_EQ(r.problems.size(), 5u);
  EXPECT_NE(r.problems[0].find("log_bin=OFF"), std::string::npos) << r.problems[0];
  EXPECT_NE(r.problems[1].find("binlog_format is STATEMENT; set binlog_format=ROW in the server "
                               "config [mysqld] section"),
            std::string::npos)
      << r.problems[1];
  EXPECT_NE(r.problems[2].find("GRANT REPLICATION SLAVE ON *.*"), std::string::npos);
  EXPECT_NE(r.problems[3].find("GRANT REPLICATION CLIENT ON *.*"), std::string::npos);
  EXPECT_NE(r.problems[4].find("(host 'other') already uses server_id 100"), std::string::npos);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("binlog_row_image is MINIMAL"), std::string::npos);
}

TEST(MysqlSourceCheck, GrantNamesAreMatchedWhole) {
  SourceFacts f = GoodMariaDb();
  f.grants = {"GRANT REPLICATION SLAVE ADMIN ON *.* TO `rb`@`%`"};
  SourceCheckResult r = EvaluateSource(f, 100);
  ASSERT_EQ(r.problems.size(), 1u);  // SLAVE ADMIN is not SLAVE; it does cover the monitor need
  EXPECT_NE(r.problems[0].find("REPLICATION SLAVE privilege"), std::string::npos);
  f.grants = {"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"};
  EXPECT_TRUE(EvaluateSource(f, 100).ok());
}

TEST(MysqlSourceCheck, ServerIdClashes) {
  SourceFacts f = GoodMariaDb();
  EXPECT_NE(EvaluateSource(f, 1).problems.at(0).find("equals the source's server_id"),
            std::string::npos);
  EXPECT_NE(EvaluateSource(f, 0).problems.at(0).find("server_id is 0"), std::string::npos);
  f.replicas = std::vector<SourceFacts::Replica>{{100, "rowbridge"}};
  SourceCheckResult own = EvaluateSource(f, 100);
  EXPECT_TRUE(own.ok());
  EXPECT_EQ(own.notes.size(), 1u);
  // Another rowbridge process with our id: a clash, set apart so a start can wait out a dead one.
  f.replicas = std::vector<SourceFacts::Replica>{{100, "rowbridge/host-a/4242"}};
  SourceCheckResult other = EvaluateSource(f, 100, "rowbridge/host-b/77");
  ASSERT_EQ(other.problems.size(), 1u);
  EXPECT_NE(other.problems[0].find("another rowbridge (report host 'rowbridge/host-a/4242') is "
                                   "replicating from the source with our server_id 100"),
            std::string::npos)
      << other.problems[0];
  ASSERT_EQ(other.rowbridge_clashes.size(), 1u);
  EXPECT_TRUE(EvaluateSource(f, 100, "rowbridge/host-a/4242").ok());
  // Any other replica with our id is a clash too, and not one to wait for.
  f.replicas = std::vector<SourceFacts::Replica>{{100, "replica-7"}};
  SourceCheckResult foreign = EvaluateSource(f, 100, "rowbridge/host-b/77");
  ASSERT_EQ(foreign.problems.size(), 1u);
  EXPECT_TRUE(foreign.rowbridge_clashes.empty());
  f.replicas.reset();
  f.replica_hosts_error = "denied";
  SourceCheckResult unknown = EvaluateSource(f, 100);
  EXPECT_TRUE(unknown.ok());
  EXPECT_NE(unknown.notes.at(0).find("could not check"), std::string::npos);
}

TEST(MysqlSourceCheck, ListsReplicasWithTheStatementTheServerKnows) {
  EXPECT_STREQ(ReplicaHostsStatement(false, "9.7.4-2"), "SHOW REPLICAS");
  EXPECT_STREQ(ReplicaHostsStatement(false, "8.4.0"), "SHOW REPLICAS");
  EXPECT_STREQ(ReplicaHostsStatement(false, "8.0.22-log"), "SHOW REPLICAS");
  EXPECT_STREQ(ReplicaHostsStatement(false, "8.0.21"), "SHOW SLAVE HOSTS");
  EXPECT_STREQ(ReplicaHostsStatement(false, "5.7.44-log"), "SHOW SLAVE HOSTS");
  EXPECT_STREQ(ReplicaHostsStatement(true, "11.8.9-MariaDB"), "SHOW SLAVE HOSTS");
  EXPECT_STREQ(ReplicaHostsStatement(true, "10.11.6-MariaDB-log"), "SHOW SLAVE HOSTS");
}

TEST(MysqlSourceCheck, VersionComparisonReadsMajorMinorPatch) {
  EXPECT_TRUE(MysqlVersionAtLeast("8.2.0", 8, 2, 0));
  EXPECT_TRUE(MysqlVersionAtLeast("10.0.1", 8, 2, 0));
  EXPECT_TRUE(MysqlVersionAtLeast("8.0.36-log", 8, 0, 22));
  EXPECT_FALSE(MysqlVersionAtLeast("8.0.9", 8, 0, 22));
  EXPECT_FALSE(MysqlVersionAtLeast("8.1.99", 8, 2, 0));
  EXPECT_FALSE(MysqlVersionAtLeast("", 8, 2, 0));
}

}  // namespace
}  // namespace rowbridge::mysql
