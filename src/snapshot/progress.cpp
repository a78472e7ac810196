#include "snapshot/progress.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "common/error.h"
namespace rowbridge::snapshot {

namespace {

std::string Duration(double seconds) {
  if (seconds < 0) return "?";
  const uint64_t s = static_cast<uint64_t>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}

}  // namespace

double EstimateEta(uint64_t rows, uint64_t estimated, double rate) {
  if (estimated == 0 || rate <= 0) return -1;
  if (rows >= estimated) return 0;
  return static_cast<double>(estimated - rows) / rate;
}

std::string RenderProgress(const ProgressLine& l, bool bar) {
  const uint64_t total = std::max(l.estimated, l.rows);
  const double fraction =
      l.done ? 1.0 : (total == 0 ? 0.0 : static_cast<double>(l.rows) / static_cast<double>(total));
  const int percent = static_cast<int>(fraction * 100);
  const std::string eta = l.done ? "done" : "ETA " + Duration(l.eta_seconds);
  if (bar) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(fraction * kWidth);
    return fmt::format("{:<32} [{}{}] {:3}%  {}/{} rows  {:.0f} rows/s  {}", l.table,
                       std::string(static_cast<size_t>(filled), '#'),
                       std::string(static_cast<size_t>(kWidth - filled), '.'), percent, l.rows,
                       total, l.rows_per_second, eta);
  }
  return fmt::format("{}: {} of ~{} rows ({}%), {:.0f} rows/s, {}", l.table, l.rows, total, percent,
                     l.rows_per_second, eta);
}

Progress::Progress(server::MetricsRegistry& registry)
    : rows_(registry.AddGauge("rowbridge_snapshot_rows_copied",
                              "Rows the initial copy has written, per source table",
                              {"database", "table"})),
      estimated_(registry.AddGauge("rowbridge_snapshot_rows_estimated",
                                   "Estimated rows of each source table being copied",
                                   {"database", "table"})),
      rate_(registry.AddGauge("rowbridge_snapshot_rows_per_second",
                              "Copy rate of each table over this run", {"database", "table"})),
      eta_(registry.AddGauge("rowbridge_snapshot_eta_seconds",
                             "Estimated seconds until the table is copied (-1 = unknown)",
                             {"database", "table"})),
      done_(registry.AddGauge("rowbridge_snapshot_table_done", "1 once the table is copied",
                              {"database", "table"})) {}

Progress::~Progress() {
  Stop();
}

TableProgressCounters& Progress::Add(const std::string& database, const std::string& table) {
  std::lock_guard lock(mutex_);
  auto t = std::make_unique<TableProgressCounters>();
  t->table = database + "." + table;
  const server::LabelValues labels = {database, table};
  t->g_rows = &rows_.WithLabels(labels);
  t->g_estimated = &estimated_.WithLabels(labels);
  t->g_rate = &rate_.WithLabels(labels);
  t->g_eta = &eta_.WithLabels(labels);
  t->g_done = &done_.WithLabels(labels);
  tables_.push_back(std::move(t));
  return *tables_.back();
}

std::vector<ProgressLine> Progress::Lines() {
  std::lock_guard lock(mutex_);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::vector<ProgressLine> out;
  for (const auto& t : tables_) {
    ProgressLine l;
    l.table = t->table;
    l.rows = t->rows_done.load();
    l.estimated = t->estimated.load();
    l.done = t->done.load();
    const uint64_t this_run = l.rows - std::min(l.rows, t->rows_at_start.load());
    l.rows_per_second = elapsed > 0 ? static_cast<double>(this_run) / elapsed : 0;
    l.eta_seconds = l.done ? 0 : EstimateEta(l.rows, l.estimated, l.rows_per_second);
    out.push_back(l);
  }
  return out;
}

void Progress::Update() {
  const std::vector<ProgressLine> lines = Lines();
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < lines.size() && i < tables_.size(); ++i) {
    TableProgressCounters& t = *tables_[i];
    t.g_rows->Set(static_cast<double>(lines[i].rows));
    t.g_estimated->Set(static_cast<double>(lines[i].estimated));
    t.g_rate->Set(lines[i].rows_per_second);
    t.g_eta->Set(lines[i].eta_seconds);
    t.g_done->Set(lines[i].done ? 1 : 0);
  }
}

void Progress::Report(bool final) {
  Update();
  const std::vector<ProgressLine> lines = Lines();
  if (tty_) {
    std::string out;
    if (drawn_lines_ > 0) out += fmt::format("\x1b[{}A", drawn_lines_);
    for (const ProgressLine& l : lines) out += "\x1b[2K" + RenderProgress(l, true) + "\n";
    drawn_lines_ = lines.size();
    std::fputs(out.c_str(), stderr);
    std::fflush(stderr);
    return;
  }
  for (const ProgressLine& l : lines) {
    if (l.done && !final) continue;
    spdlog::info("snapshot {}", RenderProgress(l, false));
  }
}

void Progress::Start(bool tty, std::chrono::milliseconds interval) {
  tty_ = tty;
  started_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this, interval] {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      cv_.wait_for(lock, interval, [&] { return stop_; });
      if (stop_) break;
      lock.unlock();
      try {
        Report(false);
      } catch (...) {
        // A progress line is not worth stopping the copy for; the failure is still said.
        spdlog::warn("{}", CurrentExceptionAsError("snapshot progress thread").what());
      }
      lock.lock();
    }
  });
}

void Progress::Stop() {
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) return;
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  Report(true);
}

}  // namespace rowbridge::snapshot
