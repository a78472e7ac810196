#include "integration/pipeline_workload.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "integration/pipeline_fixture.h"
#include "mysql/sql_quote.h"

namespace rowbridge::testing {

Workload::Workload(uint32_t seed, std::string database) : rng_(seed), db_(std::move(database)) {}

std::string Workload::Schema() const {
  return fmt::format(
      "CREATE DATABASE `{0}`;\n"
      "CREATE TABLE `{0}`.items (id INT PRIMARY KEY, grp INT NOT NULL, name VARCHAR(40) NOT "
      "NULL, qty INT NOT NULL, price DECIMAL(10,2), updated DATETIME NOT NULL, note TEXT) "
      "ENGINE=InnoDB;\n"
      "CREATE TABLE `{0}`.events (id BIGINT PRIMARY KEY, item INT NOT NULL, kind "
      "ENUM('created','changed','removed') NOT NULL, payload VARCHAR(100), at TIMESTAMP NOT NULL "
      "DEFAULT '2000-01-01 00:00:00') ENGINE=InnoDB;\n"
      "CREATE TABLE `{0}`.every_type (id INT PRIMARY KEY, ti TINYINT, tiu TINYINT UNSIGNED, si "
      "SMALLINT, siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT "
      "UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED, f FLOAT, d DOUBLE, dec1 DECIMAL(10,2), dec2 "
      "DECIMAL(30,10), dt DATE, tm TIME, tm3 TIME(3), dtm DATETIME, dtm6 DATETIME(6), ts "
      "TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, yr YEAR, c CHAR(10), vc VARCHAR(100) NOT NULL, bn "
      "BINARY(4), vbn VARBINARY(20), tx TEXT, bl BLOB, mtx MEDIUMTEXT, lbl LONGBLOB, e "
      "ENUM('a','b','c'), s SET('x','y','z'), b1 BIT(1), b12 BIT(12), j JSON, u8 VARCHAR(20) "
      "CHARACTER SET utf8mb4) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n",
      db_);
}

std::vector<ColumnCompare> Workload::ItemsColumns() {
  return {{"id"},    {"grp"},     {"name", Compare::kHex}, {"qty"},
          {"price"}, {"updated"}, {"note", Compare::kHex}};
}

std::vector<ColumnCompare> Workload::EventsColumns() {
  return {{"id"}, {"item"}, {"kind"}, {"payload", Compare::kHex}, {"at"}};
}

std::vector<ColumnCompare> Workload::EveryTypeColumns() {
  return {{"id"},
          {"ti"},
          {"tiu"},
          {"si"},
          {"siu"},
          {"mi"},
          {"miu"},
          {"i"},
          {"iu"},
          {"bi"},
          {"biu"},
          {"f"},
          {"d"},
          {"dec1"},
          {"dec2"},
          {"dt"},
          {"tm"},
          {"tm3"},
          {"dtm"},
          {"dtm6", Compare::kSeconds},
          {"ts"},
          {"ts3", Compare::kSeconds},
          {"yr"},
          {"c", Compare::kHex},
          {"vc", Compare::kHex},
          {"bn", Compare::kHex},
          {"vbn", Compare::kHex},
          {"tx", Compare::kHex},
          {"bl", Compare::kHex},
          {"mtx", Compare::kHex},
          {"lbl", Compare::kHex},
          {"e"},
          {"s"},
          {"b1", Compare::kBitNumber},
          {"b12", Compare::kBitNumber},
          {"j", Compare::kHex},
          {"u8", Compare::kHex}};
}

uint64_t Workload::changes(const std::string& table) const {
  if (table == "items") return state_.item_changes;
  if (table == "events") return state_.event_changes;
  return state_.every_changes;
}

int64_t Workload::Pick(const std::set<int64_t>& ids) {
  auto it = ids.begin();
  std::advance(it, Uniform(0, static_cast<int>(ids.size()) - 1));
  return *it;
}

std::string Workload::Text(size_t max_length) {
  static const std::vector<std::string> pieces = {"a",  "b",  "Z",  "0", "9", " ", "-", "'",
                                                  "\\", "\t", "\n", "é", "ß", "€", "x"};
  std::string s;
  const size_t n = static_cast<size_t>(Uniform(0, static_cast<int>(max_length)));
  size_t chars = 0;
  while (chars < n) {
    s += pieces[static_cast<size_t>(Uniform(0, static_cast<int>(pieces.size()) - 1))];
    ++chars;
  }
  return s;
}

std::string Workload::Hex(size_t max_length) {
  const size_t n = static_cast<size_t>(Uniform(0, static_cast<int>(max_length)));
  std::string s = "X'";
  for (size_t i = 0; i < n; ++i) s += fmt::format("{:02X}", Uniform(0, 255));
  return s + "'";
}

std::string Workload::Date() {
  return fmt::format("'{:04}-{:02}-{:02}'", Uniform(1971, 2100), Uniform(1, 12), Uniform(1, 28));
}

std::string Workload::DateTime(int first_year, int last_year, int fsp) {
  std::string s =
      fmt::format("'{:04}-{:02}-{:02} {:02}:{:02}:{:02}", Uniform(first_year, last_year),
                  Uniform(1, 12), Uniform(1, 28), Uniform(0, 23), Uniform(0, 59), Uniform(0, 59));
  if (fsp > 0) {
    s += ".";
    for (int i = 0; i < fsp; ++i) s += static_cast<char>('0' + Uniform(0, 9));
  }
  return s + "'";
}

std::string Workload::ItemChange(State& s) {
  const int kind = s.items.empty() ? 0 : Uniform(0, 9);
  ++s.item_changes;
  ++s.counter;
  if (kind <= 3) {
    const int64_t id = s.next_item++;
    s.items.insert(id);
    return fmt::format(
        "INSERT INTO `{}`.items VALUES ({}, {}, {}, {}, {}, {}, {});\n", db_, id, Uniform(1, 5),
        mysql::QuoteString(Text(12) + std::to_string(s.counter)), Uniform(-1000, 1000),
        Chance(20) ? "NULL" : fmt::format("{}.{:02}", Uniform(-99999, 99999), Uniform(0, 99)),
        DateTime(1975, 2099, 0), Chance(30) ? "NULL" : mysql::QuoteString(Text(60)));
  }
  const int64_t id = Pick(s.items);
  if (kind <= 6) {
    return fmt::format("UPDATE `{}`.items SET qty = qty + 1, name = {}, note = {} WHERE id = {};\n",
                       db_, mysql::QuoteString("u" + std::to_string(s.counter)),
                       Chance(30) ? "NULL" : mysql::QuoteString(Text(30)), id);
  }
  if (kind <= 8) {
    const int64_t moved = s.next_item++;
    s.items.erase(id);
    s.items.insert(moved);
    return fmt::format("UPDATE `{}`.items SET id = {}, qty = qty - 1 WHERE id = {};\n", db_, moved,
                       id);
  }
  s.items.erase(id);
  return fmt::format("DELETE FROM `{}`.items WHERE id = {};\n", db_, id);
}

std::string Workload::EventChange(State& s) {
  const int kind = s.events.empty() ? 0 : Uniform(0, 5);
  ++s.event_changes;
  ++s.counter;
  static const char* kinds[] = {"created", "changed", "removed"};
  if (kind <= 2) {
    const int64_t id = s.next_event++;
    s.events.insert(id);
    return fmt::format("INSERT INTO `{}`.events VALUES ({}, {}, '{}', {}, {});\n", db_, id,
                       Uniform(1, 1000), kinds[Uniform(0, 2)],
                       Chance(20) ? "NULL" : mysql::QuoteString(Text(40)), DateTime(1975, 2037, 0));
  }
  const int64_t id = Pick(s.events);
  if (kind <= 4) {
    return fmt::format("UPDATE `{}`.events SET payload = {}, kind = '{}' WHERE id = {};\n", db_,
                       mysql::QuoteString("p" + std::to_string(s.counter)), kinds[Uniform(0, 2)],
                       id);
  }
  s.events.erase(id);
  return fmt::format("DELETE FROM `{}`.events WHERE id = {};\n", db_, id);
}

std::string Workload::EveryValues(State& s, int64_t id) {
  auto null_or = [&](std::string v) { return Chance(15) ? std::string("NULL") : v; };
  auto i64 = [&](int64_t lo, int64_t hi) {
    return std::to_string(std::uniform_int_distribution<int64_t>(lo, hi)(rng_));
  };
  auto u64 = [&]() { return std::to_string(std::uniform_int_distribution<uint64_t>()(rng_)); };
  std::string tm = fmt::format("'{}{:02}:{:02}:{:02}'", Chance(30) ? "-" : "", Uniform(0, 838),
                               Uniform(0, 59), Uniform(0, 59));
  std::string tm3 = fmt::format("'{:02}:{:02}:{:02}.{:03}'", Uniform(0, 23), Uniform(0, 59),
                                Uniform(0, 59), Uniform(0, 999));
  std::string set;
  for (const char* m : {"x", "y", "z"}) {
    if (Chance(50)) set += set.empty() ? m : std::string(",") + m;
  }
  static const char* enums[] = {"a", "b", "c"};
  return fmt::format(
      "{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
      "{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}",
      id, null_or(i64(-128, 127)), null_or(i64(0, 255)), null_or(i64(-32768, 32767)),
      null_or(i64(0, 65535)), null_or(i64(-8388608, 8388607)), null_or(i64(0, 16777215)),
      null_or(i64(INT32_MIN, INT32_MAX)), null_or(i64(0, UINT32_MAX)),
      null_or(i64(INT64_MIN, INT64_MAX)), null_or(u64()),
      null_or(fmt::format("{}", Uniform(-3999, 3999) * 0.25)),
      null_or(fmt::format("{}", Uniform(-999999, 999999) * 0.125)),
      null_or(fmt::format("{}.{:02}", Uniform(-99999999, 99999999), Uniform(0, 99))),
      null_or(fmt::format("{}{}{:010}.{:010}", Chance(50) ? "-" : "", Uniform(0, 999999999),
                          Uniform(0, 999999999), Uniform(0, 999999999))),
      null_or(Date()), null_or(tm), null_or(tm3), null_or(DateTime(1971, 2100, 0)),
      null_or(DateTime(1971, 2100, 6)), null_or(DateTime(1971, 2037, 0)),
      null_or(DateTime(1971, 2037, 3)), null_or(std::to_string(Uniform(1901, 2155))),
      null_or(mysql::QuoteString(Text(10))),
      mysql::QuoteString("v" + std::to_string(s.counter) + Text(20)), null_or(Hex(4)),
      null_or(Hex(20)), null_or(mysql::QuoteString(Text(200))), null_or(Hex(300)),
      null_or(mysql::QuoteString(Text(100))), null_or(Hex(1000)),
      null_or(fmt::format("'{}'", enums[Uniform(0, 2)])), null_or(fmt::format("'{}'", set)),
      null_or(std::to_string(Uniform(0, 1))), null_or(std::to_string(Uniform(0, 4095))),
      null_or(fmt::format("'{{\"k\": {}, \"s\": {}}}'", Uniform(0, 1000),
                          "\"t" + std::to_string(s.counter) + "\"")),
      null_or(mysql::QuoteString("ü😀" + Text(5))));
}

std::string Workload::EveryChange(State& s) {
  const int kind = s.every.empty() ? 0 : Uniform(0, 4);
  ++s.every_changes;
  ++s.counter;
  if (kind <= 1) {
    const int64_t id = s.next_every++;
    s.every.insert(id);
    return fmt::format("INSERT INTO `{}`.every_type VALUES ({});\n", db_, EveryValues(s, id));
  }
  const int64_t id = Pick(s.every);
  if (kind <= 3) {
    // REPLACE would be a delete + insert; an UPDATE of every column keeps it one change.
    return fmt::format(
        "UPDATE `{0}`.every_type SET vc = {1}, i = {2}, dtm = {3}, e = {4}, bl = {5} WHERE id = "
        "{6};\n",
        db_, mysql::QuoteString("w" + std::to_string(s.counter)), Uniform(-1000, 1000),
        DateTime(1971, 2100, 0), Chance(30) ? "NULL" : "'c'", Hex(50), id);
  }
  s.every.erase(id);
  return fmt::format("DELETE FROM `{}`.every_type WHERE id = {};\n", db_, id);
}

std::string Workload::Transaction(State& s) {
  std::string sql = "BEGIN;\n";
  const int ops = Uniform(1, 6);
  for (int i = 0; i < ops; ++i) {
    switch (Uniform(0, 2)) {
      case 0:
        sql += ItemChange(s);
        break;
      case 1:
        sql += EventChange(s);
        break;
      default:
        sql += EveryChange(s);
        break;
    }
  }
  return sql;
}

std::string Workload::Next(size_t transactions) {
  std::string sql = "SET NAMES utf8mb4;\n";
  for (size_t t = 0; t < transactions; ++t) {
    if (Chance(10)) {
      State scratch = state_;  // rolled back: nothing of it counts
      sql += Transaction(scratch) + "ROLLBACK;\n";
    } else {
      sql += Transaction(state_) + "COMMIT;\n";
    }
  }
  return sql;
}

std::string Workload::BigTransaction(size_t rows) {
  std::string sql = "SET NAMES utf8mb4;\nBEGIN;\n";
  for (size_t i = 0; i < rows; ++i) {
    ++state_.item_changes;
    ++state_.counter;
    const int64_t id = state_.next_item++;
    state_.items.insert(id);
    sql += fmt::format(
        "INSERT INTO `{}`.items VALUES ({}, 7, 'big{}', {}, 1.00, "
        "'2020-01-01 00:00:00', NULL);\n",
        db_, id, i, i);
    if (!state_.events.empty() && i % 2 == 0) sql += EventChange(state_);
  }
  return sql + "COMMIT;\n";
}

std::string WorkloadRules(const std::string& db) {
  return "  - match: " + db + ".items\n    mode: replica\n" + "  - match: " + db +
         ".events\n    mode: changelog\n" + "  - match: " + db +
         ".every_type\n    mode: replica\n" + "    conversion: {on_out_of_range: clamp}\n";
}

void ExpectWorkloadReplicated(const MysqlAddress& mysql, const ClickHouseAddress& ch,
                              const std::string& source_db, const std::string& target_db,
                              const Workload& workload) {
  EXPECT_EQ(ReplicaRows(ch, target_db, "items", Workload::ItemsColumns(), "id"),
            MysqlRows(mysql, source_db, "items", Workload::ItemsColumns(), "id"));
  EXPECT_EQ(ReplicaRows(ch, target_db, "every_type", Workload::EveryTypeColumns(), "id"),
            MysqlRows(mysql, source_db, "every_type", Workload::EveryTypeColumns(), "id"));
  const std::string counts =
      RunClickHouseSql(ch, "SELECT count(), uniqExact(_version) FROM `" + target_db + "`.events");
  const std::string expected = std::to_string(workload.changes("events"));
  EXPECT_EQ(Trimmed(counts), expected + "\t" + expected)
      << "changelog rows and distinct versions must both equal the committed changes";
  EXPECT_EQ(ChangelogLatestRows(ch, target_db, "events", Workload::EventsColumns(), "id",
                                "_event_type", "_version"),
            MysqlRows(mysql, source_db, "events", Workload::EventsColumns(), "id"));
  // Replica tables: never two rows of one key with one version (a replayed change is skipped).
  for (const char* table : {"items", "every_type"}) {
    EXPECT_EQ(Trimmed(RunClickHouseSql(ch, std::string("SELECT count() FROM (SELECT id, _version, "
                                                       "count() AS n FROM `") +
                                               target_db + "`." + table +
                                               " GROUP BY id, _version HAVING n > 1)")),
              "0")
        << table;
  }
}

}  // namespace rowbridge::testing
