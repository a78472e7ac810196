#include "server/status_history.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "server/status_time.h"

namespace rowbridge::server {
namespace {

using Json = nlohmann::ordered_json;

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

Json Value(double v) {
  if (std::isnan(v)) return nullptr;
  // Three decimals are plenty for a chart and keep the JSON short.
  return std::round(v * 1000) / 1000;
}

}  // namespace

StatusHistory::StatusHistory(std::chrono::seconds interval, std::chrono::seconds window)
    : interval_(std::max(interval, std::chrono::seconds(1))),
      capacity_(std::max<size_t>(2, static_cast<size_t>(window / interval_))) {
  ring_.reserve(capacity_);
}

void StatusHistory::Record(const StatusSample& sample) {
  std::lock_guard lock(mutex_);
  const int64_t now_ms = UnixMs(sample.at);
  // The board only ever adds tables, at the end of its order.
  for (size_t i = table_names_.size(); i < sample.tables.size(); ++i)
    table_names_.emplace_back(sample.tables[i].database, sample.tables[i].table);
  previous_rows_.resize(sample.tables.size(), 0);

  Point point;
  point.unix_ms = now_ms;
  point.lag_seconds = sample.lag_seconds ? *sample.lag_seconds : kUnknown;
  const double elapsed = previous_ms_ == 0 ? 0 : static_cast<double>(now_ms - previous_ms_) / 1000;
  double total_rate = elapsed > 0 ? 0 : kUnknown;
  point.tables.reserve(sample.tables.size());
  for (size_t i = 0; i < sample.tables.size(); ++i) {
    const StatusSample::Table& t = sample.tables[i];
    TablePoint tp{t.lag ? static_cast<double>(t.lag->count()) / 1000 : kUnknown, kUnknown};
    if (elapsed > 0) {
      // A table new since the last sample counts from 0: its rows came in this interval.
      const uint64_t before = std::min(previous_rows_[i], t.rows_written);
      tp.rows_per_second = static_cast<double>(t.rows_written - before) / elapsed;
      total_rate += tp.rows_per_second;
    }
    previous_rows_[i] = t.rows_written;
    point.tables.push_back(tp);
  }
  point.rows_per_second = total_rate;
  previous_ms_ = now_ms;

  if (ring_.size() < capacity_) {
    ring_.push_back(std::move(point));
  } else {
    ring_[next_] = std::move(point);
  }
  next_ = (next_ + 1) % capacity_;
}

Json StatusHistory::ToJson() const {
  std::lock_guard lock(mutex_);
  // Oldest first: once full, the oldest is where the next one goes.
  std::vector<const Point*> points;
  points.reserve(ring_.size());
  const size_t first = ring_.size() < capacity_ ? 0 : next_;
  for (size_t i = 0; i < ring_.size(); ++i) points.push_back(&ring_[(first + i) % ring_.size()]);

  Json out;
  out["interval_seconds"] = interval_.count();
  out["window_seconds"] = static_cast<int64_t>(capacity_) * interval_.count();
  Json times = Json::array(), lag = Json::array(), rate = Json::array();
  for (const Point* p : points) {
    times.push_back(static_cast<double>(p->unix_ms) / 1000);
    lag.push_back(Value(p->lag_seconds));
    rate.push_back(Value(p->rows_per_second));
  }
  out["times"] = std::move(times);
  out["lag_seconds"] = std::move(lag);
  out["rows_per_second"] = std::move(rate);
  Json tables = Json::array();
  for (size_t i = 0; i < table_names_.size(); ++i) {
    Json table_lag = Json::array(), table_rate = Json::array();
    for (const Point* p : points) {
      const bool known = i < p->tables.size();
      table_lag.push_back(known ? Value(p->tables[i].lag_seconds) : Json());
      table_rate.push_back(known ? Value(p->tables[i].rows_per_second) : Json());
    }
    tables.push_back({{"database", table_names_[i].first},
                      {"table", table_names_[i].second},
                      {"lag_seconds", std::move(table_lag)},
                      {"rows_per_second", std::move(table_rate)}});
  }
  out["tables"] = std::move(tables);
  return out;
}

}  // namespace rowbridge::server
