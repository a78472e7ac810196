#include <gtest/gtest.h>

#include "server/status.h"

namespace rowbridge::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Json = nlohmann::ordered_json;

// 2026-01-02T03:04:05.000Z
const TimePoint kStart = TimePoint(seconds(1767323045));

struct FakeClock {
  TimePoint now = kStart;
  Clock AsClock() {
    return [this] { return now; };
  }
};

config::HealthConfig Policy(std::optional<milliseconds> max_lag = std::nullopt) {
  config::HealthConfig policy;
  policy.max_silence = seconds(60);
  policy.max_lag = max_lag;
  return policy;
}

TEST(ServerStatus, FreshBoardIsStartingAndHealthy) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  Health health = board.CheckHealth(Policy());
  EXPECT_TRUE(health.healthy);
  EXPECT_EQ(health.reason, "starting");
}

TEST(ServerStatus, WaitingCountsDownAndIsUnhealthy) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  board.SetWaiting("reconnecting to source 127.0.0.1:3306", 3, clock.now + milliseconds(3500));
  Health health = board.CheckHealth(Policy());
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.reason,
            "waiting: reconnecting to source 127.0.0.1:3306 (attempt 3, next in 4s)");
  clock.now += seconds(2);
  EXPECT_EQ(board.ToJson(Policy())["status"],
            "waiting: reconnecting to source 127.0.0.1:3306 (attempt 3, next in 2s)");
  clock.now += seconds(5);
  EXPECT_EQ(board.CheckHealth(Policy()).reason,
            "waiting: reconnecting to source 127.0.0.1:3306 (attempt 3, retrying now)");
}

TEST(ServerStatus, StoppedAndFailedAreUnhealthy) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kStopped);
  EXPECT_EQ(board.CheckHealth(Policy()).reason, "stopped");
  EXPECT_FALSE(board.CheckHealth(Policy()).healthy);
  board.SetState(PipelineState::kFailed, "configuration error: table shop.orders has no key");
  EXPECT_EQ(board.CheckHealth(Policy()).reason,
            "failed: configuration error: table shop.orders has no key");
}

TEST(ServerStatus, SilenceBeyondTheBoundIsUnhealthy) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  clock.now += seconds(50);
  board.RecordHeartbeat();
  clock.now += seconds(60);
  EXPECT_TRUE(board.CheckHealth(Policy()).healthy);
  clock.now += milliseconds(1);
  Health health = board.CheckHealth(Policy());
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.reason, "running, but no event, heartbeat or progress for 1m1s (limit 1m)");
  board.RecordSourceEvent(clock.now - seconds(5));
  EXPECT_TRUE(board.CheckHealth(Policy()).healthy);
  clock.now += seconds(61);
  board.RecordProgress();
  EXPECT_TRUE(board.CheckHealth(Policy()).healthy);
}

TEST(ServerStatus, LagBeyondTheBoundIsUnhealthy) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  TableStatus& orders = board.Table("shop", "orders", "analytics", "orders");
  TableStatus& items = board.Table("shop", "items", "analytics", "items");
  orders.RecordFlush(clock.now, clock.now - seconds(30));
  items.RecordFlush(clock.now, clock.now - seconds(400));
  EXPECT_TRUE(board.CheckHealth(Policy()).healthy);  // lag not checked
  EXPECT_TRUE(board.CheckHealth(Policy(seconds(600))).healthy);
  Health health = board.CheckHealth(Policy(seconds(60)));
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.reason,
            "running, but table shop.items was 6m40s behind the source at its last flush (limit "
            "1m)");
}

TEST(ServerStatus, LivenessJudgesSilenceButNotLag) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  EXPECT_TRUE(board.CheckLiveness(Policy()).healthy);  // starting
  board.SetState(PipelineState::kSnapshot, "initial copy");
  clock.now += seconds(59);
  board.RecordProgress();  // a chunk copied
  clock.now += seconds(60);
  EXPECT_TRUE(board.CheckLiveness(Policy()).healthy);
  board.SetState(PipelineState::kRunning);
  TableStatus& orders = board.Table("shop", "orders", "analytics", "orders");
  orders.RecordFlush(clock.now, clock.now - seconds(3600));
  board.RecordHeartbeat();
  // Far behind, but working: unhealthy for /healthz, alive for the watchdog.
  EXPECT_FALSE(board.CheckHealth(Policy(seconds(60))).healthy);
  EXPECT_TRUE(board.CheckLiveness(Policy(seconds(60))).healthy);
  clock.now += seconds(61);
  Health wedged = board.CheckLiveness(Policy());
  EXPECT_FALSE(wedged.healthy);
  EXPECT_EQ(wedged.reason, "running, but no event, heartbeat or progress for 1m1s (limit 1m)");
}

TEST(ServerStatus, ChangesWaitingUnflushedBeyondMaxLagAreUnhealthy) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  TableStatus& orders = board.Table("shop", "orders", "analytics", "orders");
  TableStatus& items = board.Table("shop", "items", "analytics", "items");
  orders.SetStreaming();
  items.SetStreaming();
  // Both flushed with a small lag; then orders gets changes its writer never finishes.
  orders.RecordFlush(clock.now, clock.now - seconds(1));
  items.RecordFlush(clock.now, clock.now - seconds(1));
  EXPECT_EQ(orders.unflushed_since(), std::nullopt);
  orders.MarkUnflushed(clock.now);
  orders.MarkUnflushed(clock.now + seconds(5));  // a later batch: the oldest change counts
  EXPECT_EQ(orders.unflushed_since(), clock.now);
  for (int i = 0; i < 6; ++i) {
    clock.now += seconds(10);
    board.RecordHeartbeat();
  }
  // 60 s waiting: at the limit, not beyond it.
  EXPECT_TRUE(board.CheckHealth(Policy(seconds(60))).healthy);
  clock.now += milliseconds(1);
  board.RecordHeartbeat();
  Health stuck = board.CheckHealth(Policy(seconds(60)));
  EXPECT_FALSE(stuck.healthy);
  EXPECT_EQ(stuck.reason,
            "running, but table shop.orders has changes received 1m1s ago and not yet flushed "
            "(limit 1m)");
  // Without max_lag nothing judges lag, this neither.
  EXPECT_TRUE(board.CheckHealth(Policy()).healthy);
  // The liveness watchdog does not judge lag: a restart would not cure a slow target.
  EXPECT_TRUE(board.CheckLiveness(Policy(seconds(60))).healthy);
  EXPECT_EQ(board.ToJson(Policy(seconds(60)))["tables"][1]["unflushed_since"],
            "2026-01-02T03:04:05.000Z");
  // The flush covering it clears it; the table is healthy again, its lag at the flush is fine.
  orders.RecordFlush(clock.now, clock.now - seconds(2));
  orders.ClearUnflushed();
  EXPECT_EQ(orders.unflushed_since(), std::nullopt);
  EXPECT_TRUE(board.CheckHealth(Policy(seconds(60))).healthy);
  EXPECT_FALSE(board.ToJson(Policy(seconds(60)))["tables"][1].contains("unflushed_since"));
}

TEST(ServerStatus, TheWorstWaitingTableIsNamed) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  board.Table("a", "young", "a", "young").MarkUnflushed(clock.now + seconds(30));
  board.Table("a", "old", "a", "old").MarkUnflushed(clock.now);
  clock.now += seconds(100);
  board.RecordHeartbeat();
  EXPECT_EQ(board.CheckHealth(Policy(seconds(20))).reason,
            "running, but table a.old has changes received 1m40s ago and not yet flushed (limit "
            "20s)");
  // A lag at the last flush beyond the limit is said first (it is the older rule).
  board.Table("a", "young", "a", "young").RecordFlush(clock.now, clock.now - seconds(50));
  EXPECT_EQ(board.CheckHealth(Policy(seconds(20))).reason,
            "running, but table a.young was 50s behind the source at its last flush (limit 20s)");
}

TEST(ServerStatus, CountsTablesByState) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.Table("a", "one", "", "").SetStreaming();
  board.Table("a", "two", "", "").SetStreaming();
  board.Table("a", "three", "", "").StartCopy(0, 10, clock.now);
  board.Table("a", "four", "", "").SetStopped("DDL", "bin.000001:4", clock.now);
  board.Table("a", "five", "", "").SetPaused(clock.now);
  using Counts = std::vector<std::pair<std::string, size_t>>;
  EXPECT_EQ(board.CountTablesByState(), (Counts{{"pending", 0},
                                                {"copying", 1},
                                                {"copied", 0},
                                                {"streaming", 2},
                                                {"stopped", 1},
                                                {"paused", 1}}));
}

TEST(ServerStatus, APausedTableSaysSinceWhenAndItsLagIsNotJudged) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  TableStatus& orders = board.Table("shop", "orders", "analytics", "orders");
  orders.SetStreaming();
  orders.RecordFlush(clock.now, clock.now - seconds(1));
  orders.MarkUnflushed(clock.now);
  orders.SetPaused(clock.now);
  EXPECT_EQ(orders.state(), TableState::kPaused);
  clock.now += seconds(50);
  board.RecordHeartbeat();
  EXPECT_EQ(board.CheckHealth(Policy(seconds(10))).reason, "running");
  const Json json = board.ToJson(Policy(seconds(10)))["tables"][0];
  EXPECT_EQ(json["state"], "paused");
  EXPECT_EQ(json["paused"], Json({{"at", "2026-01-02T03:04:05.000Z"}}));
  // Resumed: streaming again, and judged again.
  orders.SetStreaming();
  EXPECT_FALSE(board.ToJson(Policy(seconds(10)))["tables"][0].contains("paused"));
  EXPECT_FALSE(board.CheckHealth(Policy(seconds(10))).healthy);
  // A stopped table is not paused.
  orders.SetStopped("DDL", "", clock.now);
  orders.SetPaused(clock.now);
  EXPECT_EQ(orders.state(), TableState::kStopped);
}

TEST(ServerStatus, OnlyResumeTakesATableOutOfStopped) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  TableStatus& orders = board.Table("shop", "orders", "analytics", "orders");
  orders.SetStopped("DDL", "bin.000001:4", clock.now);
  orders.SetStreaming();
  EXPECT_EQ(orders.state(), TableState::kStopped) << "the stream's own calls leave it stopped";
  EXPECT_FALSE(board.CheckHealth(Policy()).healthy);
  // Its resnapshot or resume handed over: streaming, no stop left behind, healthy again.
  orders.Resume();
  EXPECT_EQ(orders.state(), TableState::kStreaming);
  EXPECT_EQ(orders.stop_reason(), "");
  EXPECT_FALSE(board.ToJson(Policy())["tables"][0].contains("stopped"));
  board.RecordHeartbeat();
  EXPECT_TRUE(board.CheckHealth(Policy()).healthy) << board.CheckHealth(Policy()).reason;
}

TEST(ServerStatus, WaitingIsAliveWhileItsRetriesKeepTheirSchedule) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  board.SetWaiting("reconnecting to ClickHouse 127.0.0.1:9000", 7, clock.now + seconds(30));
  EXPECT_FALSE(board.CheckHealth(Policy()).healthy);
  EXPECT_TRUE(board.CheckLiveness(Policy()).healthy);
  clock.now += seconds(90);  // the attempt is due since 60 s: still within max_silence
  EXPECT_TRUE(board.CheckLiveness(Policy()).healthy);
  clock.now += seconds(1);
  Health stuck = board.CheckLiveness(Policy());
  EXPECT_FALSE(stuck.healthy);
  EXPECT_EQ(stuck.reason,
            "waiting: reconnecting to ClickHouse 127.0.0.1:9000 (attempt 7, retrying now), but the "
            "attempt is 1m1s overdue (limit 1m)");
}

TEST(ServerStatus, StandbyAndStoppingAreAliveStoppedAndFailedAreNot) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kStandby, "waiting for the leader lock");
  clock.now += seconds(3600);
  EXPECT_TRUE(board.CheckLiveness(Policy()).healthy);
  board.SetState(PipelineState::kStopping);
  clock.now += seconds(3600);
  EXPECT_TRUE(board.CheckLiveness(Policy()).healthy);
  board.SetState(PipelineState::kStopped);
  EXPECT_FALSE(board.CheckLiveness(Policy()).healthy);
  board.SetState(PipelineState::kFailed, "no key");
  EXPECT_FALSE(board.CheckLiveness(Policy()).healthy);
}

TEST(ServerStatus, StateLineHasNoCountdown) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  EXPECT_EQ(board.StateLine(), "starting");
  EXPECT_EQ(board.state(), PipelineState::kStarting);
  board.SetState(PipelineState::kSnapshot, "initial copy");
  EXPECT_EQ(board.StateLine(), "snapshot: initial copy");
  board.SetWaiting("reconnecting to source 127.0.0.1:3306", 2, clock.now + seconds(4));
  const std::string line = board.StateLine();
  EXPECT_EQ(line, "waiting: reconnecting to source 127.0.0.1:3306 (attempt 2)");
  clock.now += seconds(3);
  EXPECT_EQ(board.StateLine(), line);
  EXPECT_EQ(board.state(), PipelineState::kWaiting);
}

TEST(ServerStatus, JsonHasEveryField) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetConfig({{"source", {{"password", "***"}}}});
  board.SetState(PipelineState::kRunning);
  board.SetSourcePosition({"mysql-bin.000003", 4711, "0-1-42"});
  clock.now += milliseconds(1500);
  board.RecordSourceEvent(kStart + milliseconds(1200));
  board.RecordHeartbeat();
  TableStatus& orders = board.Table("shop", "orders", "analytics", "orders");
  EXPECT_EQ(&orders, &board.Table("shop", "orders", "analytics", "orders"));
  orders.SetStreaming();
  orders.AddRows(10, 4, 1);
  orders.AddRows(1, 0, 0);
  board.SetReplicationLag(0.5);
  orders.RecordFlush(clock.now, kStart + milliseconds(1250));
  board.Table("blog", "posts", "analytics", "posts")
      .RecordError("conversion error: posts.views: 300 out of range for UInt8", clock.now);
  clock.now += seconds(10);
  EXPECT_EQ(board.ToJson(Policy()).dump(2), R"({
  "version": ")" ROWBRIDGE_VERSION R"(",
  "state": "running",
  "status": "running",
  "state_since": "2026-01-02T03:04:05.000Z",
  "started_at": "2026-01-02T03:04:05.000Z",
  "uptime_seconds": 11,
  "health": {
    "healthy": true,
    "reason": "running"
  },
  "source": {
    "position": {
      "file": "mysql-bin.000003",
      "position": 4711,
      "gtid_set": "0-1-42"
    },
    "events": 1,
    "heartbeats": 1,
    "last_event_at": "2026-01-02T03:04:06.500Z",
    "last_event_time": "2026-01-02T03:04:06.200Z",
    "last_heartbeat_at": "2026-01-02T03:04:06.500Z",
    "lag_seconds": 0.5
  },
  "tables": [
    {
      "source": {
        "database": "blog",
        "table": "posts"
      },
      "target": {
        "database": "analytics",
        "table": "posts"
      },
      "state": "pending",
      "rows": {
        "insert": 0,
        "update": 0,
        "delete": 0,
        "copied": 0
      },
      "lag_seconds": null,
      "last_flush_at": null,
      "last_error": {
        "message": "conversion error: posts.views: 300 out of range for UInt8",
        "at": "2026-01-02T03:04:06.500Z"
      }
    },
    {
      "source": {
        "database": "shop",
        "table": "orders"
      },
      "target": {
        "database": "analytics",
        "table": "orders"
      },
      "state": "streaming",
      "rows": {
        "insert": 11,
        "update": 4,
        "delete": 1,
        "copied": 0
      },
      "lag_seconds": 0.25,
      "last_flush_at": "2026-01-02T03:04:06.500Z",
      "last_error": null
    }
  ],
  "config": {
    "source": {
      "password": "***"
    }
  }
})");
}

TEST(ServerStatus, CopyingShowsProgressAndEta) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  TableStatus& t = board.Table("shop", "orders", "analytics", "orders");
  EXPECT_EQ(t.state(), TableState::kPending);
  // Resumed: 1000 rows were copied by an earlier run; the rate counts this run only.
  t.StartCopy(1000, 5000, clock.now);
  Json json = t.ToJson(clock.now);
  EXPECT_EQ(json["state"], "copying");
  EXPECT_EQ(json["copy"]["rows_copied"], 1000);
  EXPECT_EQ(json["copy"]["rows_estimated"], 5000);
  EXPECT_DOUBLE_EQ(json["copy"]["fraction"].get<double>(), 0.2);
  EXPECT_TRUE(json["copy"]["eta_seconds"].is_null()) << "no rate yet, so no ETA";
  clock.now += seconds(10);
  t.SetCopyProgress(2000);
  t.AddCopiedRows(1000);
  json = t.ToJson(clock.now);
  EXPECT_DOUBLE_EQ(json["copy"]["fraction"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(json["copy"]["rows_per_second"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(json["copy"]["eta_seconds"].get<double>(), 30);
  EXPECT_EQ(json["rows"]["copied"], 1000);
  EXPECT_EQ(json["rows"]["insert"], 0) << "copied rows are not counted as streamed";
  // A low estimate: past it the fraction is 1 and the ETA 0, never more or negative.
  t.SetCopyProgress(6000);
  json = t.ToJson(clock.now);
  EXPECT_DOUBLE_EQ(json["copy"]["fraction"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(json["copy"]["eta_seconds"].get<double>(), 0);
  t.FinishCopy();
  EXPECT_EQ(t.ToJson(clock.now)["state"], "copied");
  t.SetStreaming();
  EXPECT_EQ(t.ToJson(clock.now)["state"], "streaming");
  EXPECT_EQ(board.CheckHealth(Policy()).reason, "starting");
}

TEST(ServerStatus, StoppedTableIsFinalAndMakesHealthFail) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.SetState(PipelineState::kRunning);
  TableStatus& orders = board.Table("shop", "orders", "analytics", "orders");
  orders.SetStreaming();
  EXPECT_TRUE(board.CheckHealth(Policy()).healthy);
  // Stopped before its target was known (the checkpoint lists it), then named by the stream.
  TableStatus& items = board.Table("shop", "items", "", "");
  items.SetStopped("the source logged UPDATE as a statement", "mysql-bin.000003:4711", clock.now);
  EXPECT_TRUE(items.ToJson(clock.now)["target"].is_null());
  EXPECT_EQ(&items, &board.Table("shop", "items", "analytics", "items"));
  EXPECT_EQ(items.ToJson(clock.now)["target"]["table"], "items");
  items.SetStreaming();
  items.StartCopy(0, 10, clock.now);
  items.SetStopped("a later reason", "", clock.now);
  Json json = items.ToJson(clock.now);
  EXPECT_EQ(json["state"], "stopped");
  EXPECT_EQ(json["stopped"]["reason"], "the source logged UPDATE as a statement");
  EXPECT_EQ(json["stopped"]["position"], "mysql-bin.000003:4711");
  EXPECT_EQ(json["stopped"]["at"], "2026-01-02T03:04:05.000Z");
  Health health = board.CheckHealth(Policy());
  EXPECT_FALSE(health.healthy);
  EXPECT_EQ(health.reason,
            "running, but table shop.items is stopped: the source logged UPDATE as a statement");
  board.Table("blog", "posts", "", "")
      .SetStopped("ALTER TABLE at x: cannot follow", "x", clock.now);
  EXPECT_EQ(board.CheckHealth(Policy()).reason,
            "running, but 2 tables are stopped (blog.posts, shop.items); blog.posts: ALTER TABLE "
            "at x: cannot follow");
  EXPECT_EQ(board.ToJson(Policy())["health"]["healthy"], false);
}

TEST(ServerStatus, SampleListsTablesInTheOrderFirstSeen) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  board.Table("z", "late", "a", "b").AddCopiedRows(7);
  board.Table("a", "first", "a", "b").AddRows(1, 2, 3);
  board.Table("a", "first", "a", "b").RecordFlush(clock.now, clock.now - seconds(2));
  StatusSample sample = board.Sample();
  EXPECT_EQ(sample.at, clock.now);
  EXPECT_FALSE(sample.lag_seconds.has_value());
  ASSERT_EQ(sample.tables.size(), 2u);
  EXPECT_EQ(sample.tables[0].table, "late");
  EXPECT_EQ(sample.tables[0].rows_written, 7u);
  EXPECT_FALSE(sample.tables[0].lag.has_value());
  EXPECT_EQ(sample.tables[1].table, "first");
  EXPECT_EQ(sample.tables[1].rows_written, 6u);
  EXPECT_EQ(sample.tables[1].lag, milliseconds(2000));
  board.SetReplicationLag(1.5);
  EXPECT_EQ(board.Sample().lag_seconds, 1.5);
}

TEST(ServerStatus, LagNeverNegative) {
  FakeClock clock;
  StatusBoard board(clock.AsClock());
  TableStatus& t = board.Table("a", "b", "a", "b");
  EXPECT_FALSE(t.lag().has_value());
  t.RecordFlush(clock.now, clock.now + seconds(3));  // source clock ahead of ours
  EXPECT_EQ(t.lag(), milliseconds(0));
}

}  // namespace
}  // namespace rowbridge::server
