// The answers a resume takes from a ClickHouse cluster target (tables::TargetCatalog with
// target.cluster), on a real cluster of three clickhouse-server 18.16 nodes (shard 1 = node1,
// shard 2 = node2 + node3) and a ZooKeeper (SharedCluster): waiting for an earlier writer's
// Distributed INSERT asks every node (the INSERT ran through another node than the catalog's, and
// reached the other shard as an INSERT of its own), a node that is down is skipped and one that
// cannot be asked is named; the versions already written are read from every replica (one replica's
// fetches stopped, so the Distributed table could read a replica without them), and a replica that
// is down is left out only when its shard-mates have no part left to fetch. ClickHouse only: no
// source.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "clickhouse/client.h"
#include "clickhouse/columns/numeric.h"
#include "common/error.h"
#include "support/clickhouse_options.h"
#include "support/expect_error.h"
#include "support/test_servers.h"
#include "tables/target_tables.h"

namespace rowbridge::tables {
// For gtest's messages.
void PrintTo(const PresentRow& row, std::ostream* out) {
  *out << row.version << (row.removal ? " (removal)" : "");
}
}  // namespace rowbridge::tables

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Rows (id, version) into `table` through `client`: one block, the INSERT left open.
void SendRows(clickhouse::Client& client, const std::string& table,
              const std::vector<std::pair<uint64_t, uint64_t>>& rows,
              const clickhouse::QueryOptions& options) {
  clickhouse::Block block =
      client.BeginInsert("INSERT INTO " + table + " (id, _version) VALUES", options).EmptyLike();
  for (const auto& [id, version] : rows) {
    clickhouse::As<clickhouse::ColumnUInt64>(block.At(0)).Append(id);
    clickhouse::As<clickhouse::ColumnUInt64>(block.At(1)).Append(version);
  }
  client.SendBlock(block);
}

class ClickHouseClusterCatalog : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      cluster_ = &SharedCluster();
    } catch (const Error& e) {
      GTEST_FAIL() << "the ClickHouse cluster did not start: " << e.what();
    }
    db_ = UniqueName("rbcc");
    const std::string on = " ON CLUSTER " + cluster_->name();
    cluster_->Sql(0, fmt::format("CREATE DATABASE {0}{1}; CREATE TABLE {0}.v_local{1} (id UInt64, "
                                 "_version UInt64, _is_deleted UInt8 DEFAULT 0) ENGINE = "
                                 "ReplicatedMergeTree('/clickhouse/"
                                 "tables/{{shard}}/{0}/v_local', '{{replica}}') ORDER BY id; "
                                 "CREATE TABLE {0}.v{1} AS {0}.v_local ENGINE = Distributed({2}, "
                                 "{0}, v_local, id)",
                                 db_, on, cluster_->name()));
  }

  // The cluster as the next test expects it (it may be shared): every node running and
  // fetching, this test's database gone.
  void TearDown() override {
    if (cluster_ == nullptr) return;
    try {
      if (cluster_->node(0).pid > 0) ::kill(cluster_->node(0).pid, SIGCONT);
      cluster_->Start();
      for (size_t n = 0; n < cluster_->size(); ++n) cluster_->Sql(n, "SYSTEM START FETCHES");
      cluster_->Sql(0,
                    fmt::format("DROP DATABASE IF EXISTS {} ON CLUSTER {}", db_, cluster_->name()));
    } catch (const Error& e) {
      ADD_FAILURE() << "cannot leave the cluster as it was: " << e.what();
    }
  }

  // A catalog of the cluster talking to node i.
  tables::TargetCatalog Catalog(size_t i) const {
    return tables::TargetCatalog(ClickHouseClientOptions(cluster_->node(i)), cluster_->name());
  }

  // The test table as the pipeline's record of it would describe it.
  tables::TargetTable Table() const {
    tables::TargetTable t;
    t.database = db_;
    t.table = "v";
    t.version_column = "_version";
    t.removal_column = "_is_deleted";
    for (const char* name : {"id", "_version", "_is_deleted"}) {
      mapping::TargetColumn column;
      column.name = name;
      t.columns.push_back(column);
    }
    return t;
  }

  std::string Count(size_t node, const std::string& sql) const {
    return Trim(cluster_->Sql(node, sql));
  }

  ScopedCluster* cluster_ = nullptr;
  std::string db_;
};

// An earlier writer's Distributed INSERT through node2 (its rows for shard 1 forwarded to node1)
// is still open; a catalog talking to node3 waits until it has ended on every node, so that its
// rows are in both shards when the wait returns. A node that is down is skipped; one that
// accepts connections but does not answer (SIGSTOP) fails the wait with an error naming it.
TEST_F(ClickHouseClusterCatalog, WaitForInsertsCoversEveryNode) {
  clickhouse::Client writer(ClickHouseClientOptions(cluster_->node(1)));
  clickhouse::QueryOptions insert;
  insert.query_id = "rowbridge-4711-stream";
  insert.settings.SetUInt("insert_distributed_sync", 1);
  SendRows(writer, db_ + ".v", {{1, 1}, {2, 2}, {3, 3}, {4, 4}}, insert);
  const std::string forwarded =
      "SELECT count() FROM system.processes WHERE client_name = 'ClickHouse server' AND query "
      "LIKE 'INSERT INTO%'";
  for (int i = 0; i < 100 && Count(0, forwarded) == "0"; ++i) std::this_thread::sleep_for(100ms);
  ASSERT_EQ(Count(0, forwarded), "1") << "node1 runs the rows node2 forwarded to shard 1";

  std::thread finish([&] {
    std::this_thread::sleep_for(1500ms);
    writer.EndInsert();
  });
  tables::TargetCatalog catalog = Catalog(2);
  catalog.WaitForInserts("rowbridge-4711-", 30s);
  // Had the wait asked node3 alone, it would have returned at once, before any row was written.
  EXPECT_EQ(Count(0, "SELECT count() FROM " + db_ + ".v_local"), "2");
  const std::string local_count = "SELECT count() FROM " + db_ + ".v_local";
  EXPECT_TRUE(Count(1, local_count) == "2" || Count(2, local_count) == "2")
      << "shard 2 holds its two rows";
  for (size_t n = 0; n < cluster_->size(); ++n) {
    EXPECT_EQ(Count(n, "SELECT count() FROM system.processes WHERE query LIKE 'INSERT INTO%'"), "0")
        << "node " << n + 1;
  }
  finish.join();

  cluster_->StopNode(0);
  tables::TargetCatalog after_stop = Catalog(2);
  after_stop.WaitForInserts("rowbridge-4711-", 30s);  // node1 refuses connections: down
  cluster_->Start();

  const pid_t node1 = cluster_->node(0).pid;
  ASSERT_EQ(::kill(node1, SIGSTOP), 0);
  clickhouse::ClientOptions options = ClickHouseClientOptions(cluster_->node(2));
  options.tcp.read_timeout = 1s;
  tables::TargetCatalog stuck(options, cluster_->name());
  const Error e = ErrorOf([&] { stuck.WaitForInserts("rowbridge-4711-", 30s); });
  ::kill(node1, SIGCONT);
  EXPECT_NE(std::string(e.what()).find(
                fmt::format("cannot ask ClickHouse node 127.0.0.1:{}", cluster_->node(0).port)),
            std::string::npos)
      << e.what();
  EXPECT_TRUE(e.IsTransient()) << e.what();
}

// Rows written through node2 while node3 fetches nothing are found (a read through the
// Distributed table may pick node3 for shard 2), each once however many replicas hold it, with
// their removals told apart (a key move's two rows of one version may sit on two shards, one of
// them written and the other not). With node2 down, node3 still waiting for its parts makes the
// answer unknown (an error naming both); once node3 has them, node2 being down no longer matters.
TEST_F(ClickHouseClusterCatalog, VersionsFromReadsEveryReplica) {
  using Rows = std::vector<tables::PresentRow>;
  cluster_->Sql(2, "SYSTEM STOP FETCHES " + db_ + ".v_local");
  cluster_->Sql(1, "INSERT INTO " + db_ + ".v_local VALUES (5, 10, 0), (7, 11, 0), (9, 11, 1)");
  cluster_->Sql(0, "INSERT INTO " + db_ + ".v_local VALUES (6, 12, 0)");
  cluster_->Sql(0, "INSERT INTO " + db_ + ".v_local VALUES (2, 1, 0)");
  tables::TargetCatalog catalog = Catalog(0);
  EXPECT_EQ(catalog.VersionsFrom(Table(), 10),
            (Rows{{10, false}, {11, false}, {11, true}, {12, false}}));
  EXPECT_EQ(catalog.VersionsFrom(Table(), 0),
            (Rows{{1, false}, {10, false}, {11, false}, {11, true}, {12, false}}));
  tables::TargetTable without_removals = Table();
  without_removals.columns.pop_back();
  EXPECT_EQ(catalog.VersionsFrom(without_removals, 11),
            (Rows{{11, false}, {11, false}, {12, false}}))
      << "a table without the removal column has no removal row";

  cluster_->Sql(2, "INSERT INTO " + db_ + ".v_local VALUES (11, 13, 1)");
  cluster_->Sql(
      1, "SYSTEM SYNC REPLICA " + db_ + ".v_local");  // node2 fetched 13: two replicas hold it
  const Rows all{{10, false}, {11, false}, {11, true}, {12, false}, {13, true}};
  EXPECT_EQ(catalog.VersionsFrom(Table(), 10), all);

  cluster_->KillNode(1);
  const Error e = ErrorOf([&] { catalog.VersionsFrom(Table(), 10); });
  EXPECT_NE(std::string(e.what()).find(
                fmt::format("replica(s) 127.0.0.1:{} of shard 2", cluster_->node(1).port)),
            std::string::npos)
      << e.what();
  EXPECT_NE(std::string(e.what()).find(
                fmt::format("replica 127.0.0.1:{} still has", cluster_->node(2).port)),
            std::string::npos)
      << e.what();
  EXPECT_TRUE(e.IsTransient()) << e.what();

  cluster_->Sql(2, "SYSTEM START FETCHES " + db_ + ".v_local");
  cluster_->Start();
  cluster_->Sql(2, "SYSTEM SYNC REPLICA " + db_ + ".v_local");
  cluster_->KillNode(1);
  EXPECT_EQ(catalog.VersionsFrom(Table(), 10), all);
}

}  // namespace
}  // namespace rowbridge::testing
