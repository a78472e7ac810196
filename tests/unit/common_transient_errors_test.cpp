// The one classification of errors as transient or permanent (made where an error is built) and
// the one retry helper every retry loop uses.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "clickhouse/packets.h"
#include "common/error.h"
#include "common/retry.h"
#include "common/server_errors.h"
#include "mysql/messages.h"
#include "pipeline/batch_buffers.h"
#include "pipeline/writer_pool.h"
#include "server/metrics.h"
#include "support/expect_error.h"

namespace rowbridge {
namespace {

using namespace std::chrono_literals;
using testing::ErrorOf;

// ---- the tables ----

TEST(ServerErrorTable, IsSortedWithoutDuplicatesAndNamesEveryCode) {
  for (ServerKind kind : {ServerKind::kMysql, ServerKind::kClickHouse}) {
    const auto table = TransientServerErrors(kind);
    ASSERT_FALSE(table.empty());
    for (size_t i = 0; i < table.size(); ++i) {
      EXPECT_FALSE(table[i].name.empty()) << table[i].code;
      if (i > 0) {
        EXPECT_LT(table[i - 1].code, table[i].code) << "the lookup is a binary search";
      }
      EXPECT_TRUE(IsTransientServerError(kind, table[i].code)) << table[i].name;
    }
  }
}

TEST(ServerErrorTable, MysqlOverloadLocksAndLostConnectionsAreTransient) {
  for (int code : {1040, 1053, 1203, 1205, 1213, 1317, 1927, 2006, 2013}) {
    EXPECT_TRUE(IsTransientServerError(ServerKind::kMysql, code)) << code;
  }
  // Access denied, unknown database/table/column, syntax, duplicate key, binlog purged, a packet
  // larger than max_allowed_packet: the same request fails the same way again.
  for (int code : {1044, 1045, 1049, 1054, 1062, 1064, 1146, 1153, 1227, 1236, 0}) {
    EXPECT_FALSE(IsTransientServerError(ServerKind::kMysql, code)) << code;
  }
}

TEST(ServerErrorTable, ClickHouseOverloadAndNetworkAreTransient) {
  for (int code : {3, 159, 202, 203, 209, 210, 241, 242, 252, 319, 394, 999}) {
    EXPECT_TRUE(IsTransientServerError(ServerKind::kClickHouse, code)) << code;
  }
  // Unknown table/database/identifier, syntax, type mismatch, auth failed, readonly user.
  for (int code : {47, 53, 60, 62, 81, 164, 192, 497, 516, 0}) {
    EXPECT_FALSE(IsTransientServerError(ServerKind::kClickHouse, code)) << code;
  }
  // The kinds are separate tables: ClickHouse 1040 means nothing here.
  EXPECT_FALSE(IsTransientServerError(ServerKind::kClickHouse, 1040));
  EXPECT_FALSE(IsTransientServerError(ServerKind::kMysql, 202));
}

// ---- classified where the error is built ----

std::string ErrPacket(int code, const std::string& state, const std::string& message) {
  std::string p("\xff", 1);
  p += static_cast<char>(code & 0xff);
  p += static_cast<char>(code >> 8);
  return p + "#" + state + message;
}

TEST(ErrorTransience, MysqlErrPacketsAreClassifiedByTheirCode) {
  Error busy = ErrorOf([] {
    mysql::ThrowServerError(ErrPacket(1040, "08004", "Too many connections"), "db:3306", "");
  });
  EXPECT_EQ(busy.code(), ErrorCode::kServer);
  EXPECT_EQ(busy.server_code(), 1040);
  EXPECT_TRUE(busy.IsTransient());
  Error lock = ErrorOf([] {
    mysql::ThrowServerError(ErrPacket(1205, "HY000", "Lock wait timeout exceeded"), "db:3306", "");
  });
  EXPECT_TRUE(lock.IsTransient());
  Error denied = ErrorOf(
      [] { mysql::ThrowServerError(ErrPacket(1045, "28000", "Access denied"), "db:3306", ""); });
  EXPECT_FALSE(denied.IsTransient());
  Error unknown = ErrorOf([] {
    mysql::ThrowServerError(ErrPacket(1146, "42S02", "Table 'a.b' doesn't exist"), "db:3306", "");
  });
  EXPECT_FALSE(unknown.IsTransient());
}

TEST(ErrorTransience, ClickHouseExceptionsAreClassifiedByTheirCode) {
  clickhouse::ServerException busy;
  busy.code = 202;
  busy.name = "DB::Exception";
  busy.message = "Too many simultaneous queries";
  EXPECT_TRUE(clickhouse::ServerExceptionError({busy}, "ch:9000").IsTransient());
  clickhouse::ServerException unknown = busy;
  unknown.code = 60;
  unknown.message = "Table x.y does not exist";
  // The outermost code decides (the server's own classification of the failure).
  EXPECT_FALSE(clickhouse::ServerExceptionError({unknown, busy}, "ch:9000").IsTransient());
}

TEST(ErrorTransience, CategoriesDecideWhenTheBuilderSaysNothing) {
  EXPECT_TRUE(Error(ErrorCode::kNetwork, "x").IsTransient());
  EXPECT_TRUE(Error(ErrorCode::kTimeout, "x").IsTransient());
  for (ErrorCode code :
       {ErrorCode::kServer, ErrorCode::kProtocol, ErrorCode::kConfig, ErrorCode::kInternal,
        ErrorCode::kFenced, ErrorCode::kConversion, ErrorCode::kSourceChanged}) {
    EXPECT_FALSE(Error(code, "x").IsTransient()) << ErrorCodeName(code);
  }
  EXPECT_FALSE(Error(ErrorCode::kNetwork, "bad certificate", Transience::kPermanent).IsTransient());
}

TEST(ErrorTransience, WithMessageKeepsEverythingButTheMessage) {
  const Error e(ErrorCode::kServer, "inner", 202, "", Transience::kTransient);
  const Error wrapped = e.WithMessage("writing t: inner");
  EXPECT_STREQ(wrapped.what(), "writing t: inner");
  EXPECT_EQ(wrapped.code(), ErrorCode::kServer);
  EXPECT_EQ(wrapped.server_code(), 202);
  EXPECT_TRUE(wrapped.IsTransient());
}

// ---- any exception becomes an Error ----

TEST(CurrentExceptionAsError, TurnsAnyExceptionIntoAnErrorNamingWhere) {
  auto as_error = [](auto&& thrower) {
    try {
      thrower();
    } catch (...) {
      return CurrentExceptionAsError("writer thread 1 writing db.t");
    }
    return Error(ErrorCode::kInternal, "nothing thrown");
  };
  Error oom = as_error([] { throw std::bad_alloc(); });
  EXPECT_EQ(oom.code(), ErrorCode::kInternal);
  EXPECT_STREQ(oom.what(), "writer thread 1 writing db.t: out of memory (std::bad_alloc)");
  EXPECT_FALSE(oom.IsTransient());
  Error std_error = as_error([] { throw std::logic_error("vector::at"); });
  EXPECT_STREQ(std_error.what(), "writer thread 1 writing db.t: unexpected exception: vector::at");
  Error odd = as_error([] { throw 42; });
  EXPECT_EQ(odd.code(), ErrorCode::kInternal);
  Error ours =
      as_error([] { throw Error(ErrorCode::kServer, "busy", 202, "", Transience::kTransient); });
  EXPECT_STREQ(ours.what(), "writer thread 1 writing db.t: busy");
  EXPECT_EQ(ours.server_code(), 202);
  EXPECT_TRUE(ours.IsTransient());
}

// ---- Backoff and Retry ----

TEST(Backoff, DoublesUpToTheCap) {
  RetryPolicy p;
  p.initial = 100ms;
  p.max = 1000ms;
  p.jitter = 0;
  Backoff b(p);
  std::vector<int64_t> waits;
  for (int i = 0; i < 6; ++i) waits.push_back(b.NextWait().value().count());
  EXPECT_EQ(waits, (std::vector<int64_t>{100, 200, 400, 800, 1000, 1000}));
  EXPECT_EQ(b.failures(), 6);
  b.Reset();
  EXPECT_EQ(b.NextWait().value(), 100ms);
}

TEST(Backoff, JitterDrawsEachWaitBelowItsStep) {
  RetryPolicy p;
  p.initial = 1000ms;
  p.max = 1000ms;
  p.jitter = 0.5;
  Backoff b(p);
  std::set<int64_t> seen;
  for (int i = 0; i < 200; ++i) {
    const int64_t w = b.NextWait().value().count();
    EXPECT_GE(w, 500);
    EXPECT_LE(w, 1000);
    seen.insert(w);
  }
  EXPECT_GT(seen.size(), 10u) << "the waits are spread, not all equal";
}

TEST(Backoff, BoundsAttemptsAndTime) {
  RetryPolicy p;
  p.initial = 10ms;
  p.jitter = 0;
  p.max_attempts = 3;
  Backoff attempts(p);
  EXPECT_TRUE(attempts.NextWait());   // after the 1st failure
  EXPECT_TRUE(attempts.NextWait());   // after the 2nd
  EXPECT_FALSE(attempts.NextWait());  // the 3rd was the last attempt

  RetryPolicy t;
  t.initial = 40ms;
  t.max = 40ms;
  t.jitter = 0;
  t.max_elapsed = 100ms;
  Backoff time(t);
  EXPECT_TRUE(time.NextWait());  // 0 + 40 <= 100
  std::this_thread::sleep_for(70ms);
  EXPECT_FALSE(time.NextWait());  // 70 + 40 > 100
}

RetryOptions Fast(int max_attempts = 0) {
  RetryOptions o;
  o.policy.initial = 1ms;
  o.policy.max = 4ms;
  o.policy.max_attempts = max_attempts;
  return o;
}

TEST(Retry, RetriesTransientErrorsUntilSuccess) {
  int calls = 0;
  int before_retry = 0;
  RetryOptions o = Fast();
  o.before_retry = [&](const Error& e) {
    ++before_retry;
    EXPECT_EQ(e.server_code(), 1040);
  };
  const int got = Retry("test", o, [&] {
    if (++calls < 4) throw Error(ErrorCode::kServer, "too many", 1040, "", Transience::kTransient);
    return 7;
  });
  EXPECT_EQ(got, 7);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(before_retry, 3);
}

TEST(Retry, APermanentErrorIsNotRetried) {
  int calls = 0;
  Error e = ErrorOf([&] {
    Retry("test", Fast(), [&] {
      ++calls;
      throw Error(ErrorCode::kServer, "Access denied", 1045, "28000", Transience::kPermanent);
    });
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(e.server_code(), 1045);
}

TEST(Retry, GivesUpWithTheLastErrorWhenThePolicyIsUsedUp) {
  int calls = 0;
  Error e = ErrorOf([&] {
    Retry("test", Fast(3), [&] {
      ++calls;
      throw Error(ErrorCode::kNetwork, "refused " + std::to_string(calls));
    });
  });
  EXPECT_EQ(calls, 3);
  EXPECT_STREQ(e.what(), "refused 3");
  EXPECT_TRUE(e.IsTransient());
}

TEST(Retry, AStopEndsTheWait) {
  std::atomic<bool> stop{false};
  RetryOptions o;
  o.policy.initial = 60s;
  o.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    stop = true;
  });
  const auto started = std::chrono::steady_clock::now();
  Error e = ErrorOf([&] { Retry("test", o, [&] { throw Error(ErrorCode::kTimeout, "slow"); }); });
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  EXPECT_EQ(e.code(), ErrorCode::kTimeout);
}

TEST(Retry, OtherExceptionsPassUntouched) {
  int calls = 0;
  EXPECT_THROW(Retry("test", Fast(),
                     [&] {
                       ++calls;
                       throw std::bad_alloc();
                     }),
               std::bad_alloc);
  EXPECT_EQ(calls, 1);
}

// ---- a writer thread's non-Error exception ----

// A writer that meets std::bad_alloc aborts the buffers with an Error naming the thread and the
// table, and the process goes on (before: only Error was caught, and std::terminate ended it).
TEST(WriterPoolExceptions, ANonErrorExceptionBecomesTheSessionsError) {
  pipeline::BatchLimits limits;
  limits.max_rows = 1;
  limits.max_delay = 1h;
  pipeline::BatchBuffers buffers(limits);
  {
    std::unique_lock lock(buffers.mutex());
    auto g = std::make_unique<pipeline::TargetGroup>();
    g->label = "db.orders";
    pipeline::TargetGroup& group = buffers.AddGroup(std::move(g));
    pipeline::Batch* b = buffers.Reserve(lock, group);
    ASSERT_NE(b, nullptr);
    buffers.Appended(*b, 10, 1, std::chrono::steady_clock::now());
    buffers.SealIfFull(group);
    ASSERT_NE(group.sealed, nullptr);
  }
  server::MetricsRegistry registry;
  server::Counter& batches = registry.AddCounter("test_batches_total", "test").Get();
  clickhouse::ClientOptions options;
  options.host = "127.0.0.1";
  options.port = 9;
  pipeline::WriterPool pool(1, options, buffers, "test-", batches);
  pool.SetBeforeInsertForTesting([](const std::string&) { throw std::bad_alloc(); });
  pool.Start();
  pool.Join();
  ASSERT_TRUE(buffers.aborted());
  const std::optional<Error> error = buffers.error();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::kInternal);
  const std::string message = error->what();
  EXPECT_NE(message.find("writer thread 0"), std::string::npos) << message;
  EXPECT_NE(message.find("db.orders"), std::string::npos) << message;
  EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
}

}  // namespace
}  // namespace rowbridge
