// The recent past of the status board for the web page's charts: the replication lag and rows/s,
// source-wide and per table, sampled at a fixed interval into a ring buffer that holds a fixed
// window (15 minutes of 5 s samples by default). Memory is bounded: samples x tables, never more.
//
// Record() takes one StatusBoard::Sample(); rows/s are the differences of the rows written
// (copied and streamed) between two samples, so the first sample has none. ToJson() renders:
//
//   {"interval_seconds": 5, "window_seconds": 900,
//    "times": [unix seconds, oldest first],
//    "lag_seconds": [...], "rows_per_second": [...],          (source-wide; null = unknown)
//    "tables": [{"database": "shop", "table": "orders",
//                "lag_seconds": [...], "rows_per_second": [...]}]}  (aligned with "times")
//
// Thread-safe (one lock; Record runs every few seconds, ToJson per page poll).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/status.h"

namespace rowbridge::server {

class StatusHistory {
 public:
  static constexpr std::chrono::seconds kDefaultInterval{5};
  static constexpr std::chrono::seconds kDefaultWindow{15 * 60};

  // Keeps window / interval samples (at least 2).
  explicit StatusHistory(std::chrono::seconds interval = kDefaultInterval,
                         std::chrono::seconds window = kDefaultWindow);

  std::chrono::seconds interval() const { return interval_; }
  size_t capacity() const { return capacity_; }

  void Record(const StatusSample& sample);

  nlohmann::ordered_json ToJson() const;

 private:
  // NaN stands for "unknown" (rendered null) so that a sample is a flat vector.
  struct TablePoint {
    double lag_seconds;
    double rows_per_second;
  };
  struct Point {
    int64_t unix_ms = 0;
    double lag_seconds = 0;
    double rows_per_second = 0;
    std::vector<TablePoint> tables;  // by table index; shorter when tables came later
  };

  const std::chrono::seconds interval_;
  const size_t capacity_;

  mutable std::mutex mutex_;
  std::vector<Point> ring_;  // grows to capacity_, then overwritten at next_
  size_t next_ = 0;
  std::vector<std::pair<std::string, std::string>> table_names_;  // index = the board's order
  std::vector<uint64_t> previous_rows_;
  int64_t previous_ms_ = 0;  // 0 = no previous sample
};

}  // namespace rowbridge::server
