// rowbridge-loadgen: writes random rows into a MySQL/MariaDB table over N connections, like the
// seed's insertDataTest (same flags), and reports the achieved rate as it goes and at the end.
// Columns are read from information_schema, so any table works; an optional update/delete mix
// exercises the non-insert paths of a replicator.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "column_spec.h"
#include "common/error.h"
#include "mysql/connection.h"
#include "mysql/sql_quote.h"
#include "value_generator.h"

namespace rowbridge::loadgen {
namespace {

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 3306;
  std::string user = "root";
  std::string password;
  std::string schema = "bifrost_test";
  std::string table = "binlog_field_test_1";
  uint64_t count = 100000;
  uint32_t batch_size = 1000;
  uint32_t connections = 2;
  uint32_t interval_ms = 100;
  double duration_s = 0;  // 0 = until count rows
  uint32_t update_percent = 0;
  uint32_t delete_percent = 0;
  uint32_t max_string = 32;
  uint64_t seed = 42;
  double report_every_s = 1.0;
};

mysql::ConnectOptions ConnectOptionsFrom(const Options& o) {
  mysql::ConnectOptions c;
  c.host = o.host;
  c.port = o.port;
  c.user = o.user;
  c.password = o.password;
  c.database = o.schema;
  c.program_name = "rowbridge-loadgen";
  return c;
}

std::vector<ColumnSpec> ReadColumns(mysql::Connection& conn, const Options& o) {
  std::vector<ColumnSpec> columns;
  auto rs = conn.Query(
      fmt::format("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, EXTRA, COLUMN_KEY, "
                  "IFNULL(CHARACTER_MAXIMUM_LENGTH, 0), IFNULL(NUMERIC_PRECISION, 0), "
                  "IFNULL(NUMERIC_SCALE, 0), "
                  "IFNULL(DATETIME_PRECISION, 0), IFNULL(CHARACTER_SET_NAME, '') FROM "
                  "information_schema.COLUMNS "
                  "WHERE TABLE_SCHEMA = {} AND TABLE_NAME = {} ORDER BY ORDINAL_POSITION",
                  mysql::QuoteString(o.schema), mysql::QuoteString(o.table)));
  while (rs.Next()) {
    auto num = [&](size_t i) { return std::stoull(std::string(rs.Field(i))); };
    columns.push_back(MakeColumnSpec(std::string(rs.Field(0)), std::string(rs.Field(1)),
                                     std::string(rs.Field(2)), rs.Field(3) == "YES",
                                     std::string(rs.Field(4)), std::string(rs.Field(5)), num(6),
                                     static_cast<uint32_t>(num(7)), static_cast<uint32_t>(num(8)),
                                     static_cast<uint32_t>(num(9)), std::string(rs.Field(10))));
  }
  if (columns.empty())
    Fail(ErrorCode::kConfig, "loadgen: table {}.{} not found on {}:{}", o.schema, o.table, o.host,
         o.port);
  if (conn.is_mariadb()) {
    // MariaDB's JSON is LONGTEXT with a json_valid() CHECK: only the constraint tells them apart.
    auto checks =
        conn.Query(fmt::format("SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS "
                               "WHERE CONSTRAINT_SCHEMA = {} AND TABLE_NAME = {}",
                               mysql::QuoteString(o.schema), mysql::QuoteString(o.table)));
    while (checks.Next()) {
      for (auto& c : columns) {
        if (checks.Field(0) == "json_valid(" + mysql::QuoteIdentifier(c.name) + ")")
          c.kind = ValueKind::kJson;
      }
    }
  }
  return columns;
}

class LoadRun {
 public:
  LoadRun(const Options& options, std::vector<ColumnSpec> columns)
      : options_(options), columns_(std::move(columns)) {
    for (const auto& c : columns_) {
      if (c.primary_key && c.auto_increment && columns_key_ == nullptr) columns_key_ = &c;
    }
    if ((options_.update_percent || options_.delete_percent) && columns_key_ == nullptr)
      Fail(ErrorCode::kConfig,
           "loadgen: --update-percent/--delete-percent need an AUTO_INCREMENT primary key in {}.{}",
           options_.schema, options_.table);
  }

  void Run() {
    start_ = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (uint32_t i = 0; i < options_.connections; ++i)
      workers.emplace_back([this, i] { Work(i); });
    std::thread reporter([this] { ReportUntilDone(); });
    for (auto& t : workers) t.join();
    done_ = true;
    reporter.join();
    PrintProgress(/*final=*/true);
    if (!first_error_.empty()) Fail(ErrorCode::kServer, "loadgen: {}", first_error_);
  }

 private:
  bool TimeUp() const {
    if (options_.duration_s <= 0) return false;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >=
           options_.duration_s;
  }

  // Claims up to batch_size rows of the total; 0 when the run is over.
  uint64_t ClaimRows() {
    if (stop_ || TimeUp()) return 0;
    if (options_.duration_s > 0) return options_.batch_size;
    uint64_t claimed = claimed_.fetch_add(options_.batch_size);
    if (claimed >= options_.count) return 0;
    return std::min<uint64_t>(options_.batch_size, options_.count - claimed);
  }

  void Work(uint32_t worker) {
    try {
      auto conn = mysql::Connection::Connect(ConnectOptionsFrom(options_));
      ValueGenerator gen(options_.seed * 7919 + worker, options_.max_string);
      std::string sql;
      std::string insert_prefix =
          fmt::format("INSERT INTO {} (", mysql::QuoteIdentifier(options_.table));
      bool first = true;
      for (const auto& c : columns_) {
        if (c.auto_increment) continue;
        insert_prefix += first ? "" : ",";
        insert_prefix += mysql::QuoteIdentifier(c.name);
        first = false;
      }
      insert_prefix += ") VALUES ";
      auto next_tick = std::chrono::steady_clock::now();
      while (uint64_t rows = ClaimRows()) {
        uint64_t dice = gen.Below(100);
        if (dice < options_.update_percent && max_id_ > 0) {
          Update(*conn, gen, sql, rows);
        } else if (dice < options_.update_percent + options_.delete_percent && max_id_ > 0) {
          Delete(*conn, gen, sql, rows);
        } else {
          Insert(*conn, gen, sql, insert_prefix, rows);
        }
        if (options_.interval_ms) {
          next_tick += std::chrono::milliseconds(options_.interval_ms);
          std::this_thread::sleep_until(next_tick);
        }
      }
    } catch (const Error& e) {
      std::lock_guard lock(mutex_);
      if (first_error_.empty()) first_error_ = e.what();
      stop_ = true;
    }
  }

  void Insert(mysql::Connection& conn, ValueGenerator& gen, std::string& sql,
              const std::string& prefix, uint64_t rows) {
    sql = prefix;
    for (uint64_t r = 0; r < rows; ++r) {
      sql += r ? ",(" : "(";
      bool first = true;
      for (const auto& c : columns_) {
        if (c.auto_increment) continue;
        if (!first) sql += ',';
        gen.AppendLiteral(c, sql);
        first = false;
      }
      sql += ')';
    }
    auto result = conn.Execute(sql);
    inserted_ += result.affected_rows;
    bytes_ += sql.size();
    if (columns_key_ && result.last_insert_id) {
      uint64_t last = result.last_insert_id + result.affected_rows - 1;
      uint64_t seen = max_id_.load();
      while (last > seen && !max_id_.compare_exchange_weak(seen, last)) {
      }
      uint64_t low = min_id_.load();
      while ((low == 0 || result.last_insert_id < low) &&
             !min_id_.compare_exchange_weak(low, result.last_insert_id)) {
      }
    }
  }

  std::string RandomIdList(ValueGenerator& gen, uint64_t rows) {
    uint64_t lo = min_id_, hi = max_id_;
    std::string ids;
    for (uint64_t i = 0; i < rows; ++i) {
      if (i) ids += ',';
      ids += std::to_string(lo + gen.Below(hi - lo + 1));
    }
    return ids;
  }

  void Update(mysql::Connection& conn, ValueGenerator& gen, std::string& sql, uint64_t rows) {
    sql = fmt::format("UPDATE {} SET ", mysql::QuoteIdentifier(options_.table));
    bool first = true;
    for (const auto& c : columns_) {
      if (c.primary_key) continue;
      if (!first) sql += ',';
      sql += mysql::QuoteIdentifier(c.name);
      sql += '=';
      gen.AppendLiteral(c, sql);
      first = false;
    }
    sql += fmt::format(" WHERE {} IN ({})", mysql::QuoteIdentifier(columns_key_->name),
                       RandomIdList(gen, std::min<uint64_t>(rows, 100)));
    updated_ += conn.Execute(sql).affected_rows;
  }

  void Delete(mysql::Connection& conn, ValueGenerator& gen, std::string& sql, uint64_t rows) {
    sql = fmt::format("DELETE FROM {} WHERE {} IN ({})", mysql::QuoteIdentifier(options_.table),
                      mysql::QuoteIdentifier(columns_key_->name),
                      RandomIdList(gen, std::min<uint64_t>(rows, 100)));
    deleted_ += conn.Execute(sql).affected_rows;
  }

  void ReportUntilDone() {
    auto next = std::chrono::steady_clock::now();
    while (!done_) {
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(options_.report_every_s));
      // Short sleeps so that the end of the run is not delayed by a whole reporting period.
      while (!done_ && std::chrono::steady_clock::now() < next)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!done_) PrintProgress(false);
    }
  }

  void PrintProgress(bool final) {
    std::lock_guard lock(mutex_);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    uint64_t inserted = inserted_;
    double rate = elapsed > 0 ? inserted / elapsed : 0;
    std::printf(
        "%s elapsed=%.1fs inserted=%llu updated=%llu deleted=%llu rows/s=%.0f "
        "rows/min=%.0f sql_MB=%.1f\n",
        final ? "DONE" : "progress", elapsed, static_cast<unsigned long long>(inserted),
        static_cast<unsigned long long>(updated_.load()),
        static_cast<unsigned long long>(deleted_.load()), rate, rate * 60, bytes_ / 1e6);
    std::fflush(stdout);
  }

  const Options& options_;
  std::vector<ColumnSpec> columns_;
  const ColumnSpec* columns_key_ = nullptr;
  std::chrono::steady_clock::time_point start_;
  std::atomic<uint64_t> claimed_{0}, inserted_{0}, updated_{0}, deleted_{0}, bytes_{0};
  std::atomic<uint64_t> min_id_{0}, max_id_{0};
  std::atomic<bool> stop_{false}, done_{false};
  std::mutex mutex_;
  std::string first_error_;
};

// insertDataTest used Go-style single-dash long flags (-host, -batchsize); accept both spellings.
std::vector<std::string> NormalizeFlags(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] != '-') a = "-" + a;
    args.push_back(a);
  }
  return args;  // CLI11 wants them reversed
}

}  // namespace
}  // namespace rowbridge::loadgen

int main(int argc, char** argv) {
  using namespace rowbridge::loadgen;
  Options o;
  CLI::App app{"rowbridge-loadgen: random rows into a MySQL/MariaDB table"};
  app.add_option("--host", o.host, "server host");
  app.add_option("--port", o.port, "server port");
  app.add_option("--user", o.user, "user");
  app.add_option("--pwd,--password", o.password, "password (or env MYSQL_PWD)")
      ->envname("MYSQL_PWD");
  app.add_option("--schema", o.schema, "database");
  app.add_option("--table", o.table, "table");
  app.add_option("--count", o.count, "total rows to insert (ignored with --duration)");
  app.add_option("--batchsize", o.batch_size, "rows per INSERT statement")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--conn", o.connections, "parallel connections")->check(CLI::Range(1, 256));
  app.add_option("--time_interval", o.interval_ms,
                 "milliseconds between statements per connection");
  app.add_option("--duration", o.duration_s, "run for this many seconds instead of --count rows");
  app.add_option("--update-percent", o.update_percent, "share of statements that UPDATE")
      ->check(CLI::Range(0, 100));
  app.add_option("--delete-percent", o.delete_percent, "share of statements that DELETE")
      ->check(CLI::Range(0, 100));
  app.add_option("--max-string", o.max_string, "longest generated string/blob");
  app.add_option("--seed", o.seed, "random seed");
  app.add_option("--report-every", o.report_every_s, "seconds between progress lines");
  try {
    app.parse(NormalizeFlags(argc, argv));
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (o.update_percent + o.delete_percent > 100)
      rowbridge::Fail(rowbridge::ErrorCode::kInvalidArgument,
                      "--update-percent plus --delete-percent exceed 100");
    auto conn = rowbridge::mysql::Connection::Connect(ConnectOptionsFrom(o));
    auto columns = ReadColumns(*conn, o);
    conn.reset();
    LoadRun run(o, std::move(columns));
    run.Run();
  } catch (const rowbridge::Error& e) {
    std::fprintf(stderr, "rowbridge-loadgen: %s: %s\n", rowbridge::ErrorCodeName(e.code()),
                 e.what());
    return 1;
  }
  return 0;
}
