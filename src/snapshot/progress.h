// Progress of a copy, per table: rows done, an estimate of the total (information_schema's
// TABLE_ROWS, or COUNT(*) for small tables), rows/s since this run started, and the ETA that
// follows. Counters are atomics the copy threads bump; a reporter thread renders them every
// interval, as a live bar on a terminal (rewritten in place) or as plain log lines otherwise, and
// the same numbers are exported as gauges:
//   rowbridge_snapshot_rows_copied{database,table}      rows done (this and earlier runs)
//   rowbridge_snapshot_rows_estimated{database,table}   the estimate of the table's rows
//   rowbridge_snapshot_rows_per_second{database,table}  rate over this run
//   rowbridge_snapshot_eta_seconds{database,table}      -1 when unknown
//   rowbridge_snapshot_table_done{database,table}       1 once the table is copied
// (labelled like every per-table series: the source table's database and name).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/metrics.h"

namespace rowbridge::snapshot {

struct TableProgressCounters {
  std::string table;  // db.table
  std::atomic<uint64_t> rows_done{0};
  std::atomic<uint64_t> rows_at_start{0};  // rows_done when this run started
  std::atomic<uint64_t> estimated{0};
  std::atomic<bool> done{false};
  server::Gauge* g_rows = nullptr;
  server::Gauge* g_estimated = nullptr;
  server::Gauge* g_rate = nullptr;
  server::Gauge* g_eta = nullptr;
  server::Gauge* g_done = nullptr;
};

struct ProgressLine {
  std::string table;
  uint64_t rows = 0;
  uint64_t estimated = 0;
  double rows_per_second = 0;
  double eta_seconds = -1;  // -1 = unknown
  bool done = false;
};

// "shop.orders  [#########.........]  45%  450000/1000000 rows  52000 rows/s  ETA 10s" (bar) or
// "shop.orders: 450000 of ~1000000 rows (45%), 52000 rows/s, ETA 10s" (plain).
std::string RenderProgress(const ProgressLine& line, bool bar);
// The ETA when `rows` of `estimated` are done at `rate`; -1 when unknown (no rate, no estimate).
// Past the estimate (it was low) the ETA is 0, not negative.
double EstimateEta(uint64_t rows, uint64_t estimated, double rate);

class Progress {
 public:
  explicit Progress(server::MetricsRegistry& registry);
  ~Progress();

  // The counters of source table `database`.`table`.
  TableProgressCounters& Add(const std::string& database, const std::string& table);
  // Renders every `interval` on a thread: a bar when `tty`, else lines (every `interval`).
  void Start(bool tty, std::chrono::milliseconds interval);
  void Stop();
  std::vector<ProgressLine> Lines();
  // Refreshes the gauges (also done by the reporter).
  void Update();

 private:
  void Report(bool final);
  server::Family<server::Gauge>& rows_;
  server::Family<server::Gauge>& estimated_;
  server::Family<server::Gauge>& rate_;
  server::Family<server::Gauge>& eta_;
  server::Family<server::Gauge>& done_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<TableProgressCounters>> tables_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::thread thread_;
  bool stop_ = false;
  bool tty_ = false;
  size_t drawn_lines_ = 0;
};

}  // namespace rowbridge::snapshot
