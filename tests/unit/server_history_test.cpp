#include <gtest/gtest.h>

#include "server/status_history.h"

namespace rowbridge::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const TimePoint kStart = TimePoint(seconds(1767323045));

StatusSample Sample(TimePoint at, std::vector<StatusSample::Table> tables,
                    std::optional<double> lag = std::nullopt) {
  StatusSample sample;
  sample.at = at;
  sample.lag_seconds = lag;
  sample.tables = std::move(tables);
  return sample;
}

TEST(StatusHistory, RatesAreDifferencesBetweenSamples) {
  StatusHistory history(seconds(5), seconds(60));
  EXPECT_EQ(history.capacity(), 12u);
  history.Record(Sample(kStart, {{"shop", "orders", 100, std::nullopt}}));
  history.Record(Sample(kStart + seconds(5), {{"shop", "orders", 600, milliseconds(1500)}}, 2.0));
  // A table that appears later: its rows came in this interval.
  history.Record(Sample(
      kStart + seconds(10),
      {{"shop", "orders", 600, milliseconds(1500)}, {"shop", "items", 50, std::nullopt}}, 0.25));
  const nlohmann::ordered_json json = history.ToJson();
  EXPECT_EQ(json.dump(), nlohmann::ordered_json::parse(R"({
    "interval_seconds": 5, "window_seconds": 60,
    "times": [1767323045.0, 1767323050.0, 1767323055.0],
    "lag_seconds": [null, 2.0, 0.25],
    "rows_per_second": [null, 100.0, 10.0],
    "tables": [
      {"database": "shop", "table": "orders",
       "lag_seconds": [null, 1.5, 1.5], "rows_per_second": [null, 100.0, 0.0]},
      {"database": "shop", "table": "items",
       "lag_seconds": [null, null, null], "rows_per_second": [null, null, 10.0]}
    ]})")
                             .dump());
}

TEST(StatusHistory, KeepsOnlyTheWindowOldestFirst) {
  StatusHistory history(seconds(5), seconds(15));
  ASSERT_EQ(history.capacity(), 3u);
  for (int i = 0; i < 10; ++i) {
    history.Record(Sample(kStart + seconds(5 * i), {{"a", "b", uint64_t(i) * 10, std::nullopt}}));
  }
  const nlohmann::ordered_json json = history.ToJson();
  ASSERT_EQ(json["times"].size(), 3u);
  EXPECT_EQ(json["times"][0], 1767323045.0 + 35);
  EXPECT_EQ(json["times"][2], 1767323045.0 + 45);
  EXPECT_EQ(json["rows_per_second"][2], 2.0);
  EXPECT_EQ(json["tables"][0]["rows_per_second"].size(), 3u);
}

TEST(StatusHistory, FifteenMinutesOfFiveSecondSamplesByDefault) {
  StatusHistory history;
  EXPECT_EQ(history.interval(), seconds(5));
  EXPECT_EQ(history.capacity(), 180u);
}

}  // namespace
}  // namespace rowbridge::server
