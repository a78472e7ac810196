#include "check/table_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "binlog/column_type.h"
#include "check/row_normalizer.h"
#include "clickhouse/columns/wide_int.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "mysql/sql_quote.h"

namespace rowbridge::check {

namespace {

using binlog::ColumnType;

// Rows of one range on one side; NormalizedRow objects are reused from range to range.
class RowBuffer {
 public:
  NormalizedRow& Add() {
    if (size_ == rows_.size()) rows_.emplace_back();
    return rows_[size_++];
  }
  void Clear() { size_ = 0; }
  size_t size() const { return size_; }
  NormalizedRow& operator[](size_t i) { return rows_[i]; }
  uint64_t Checksum() const {
    uint64_t sum = 0;
    for (size_t i = 0; i < size_; ++i) sum += rows_[i].hash;
    return sum;
  }
  // Pointers to the rows, sorted by key.
  std::vector<const NormalizedRow*> SortedByKey() const {
    std::vector<const NormalizedRow*> out;
    out.reserve(size_);
    for (size_t i = 0; i < size_; ++i) out.push_back(&rows_[i]);
    std::stable_sort(out.begin(), out.end(), [](const NormalizedRow* a, const NormalizedRow* b) {
      return a->key < b->key;
    });
    return out;
  }

 private:
  std::vector<NormalizedRow> rows_;
  size_t size_ = 0;
};

bool IsIntegerType(const binlog::ColumnDef& c) {
  switch (c.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      return true;
    default:
      return false;
  }
}

// Integer key text as a comparable number.
clickhouse::Int128 KeyNumber(const std::string& text) {
  clickhouse::Int128 v = 0;
  if (!text.empty() && text[0] == '-') {
    int64_t s = 0;
    std::from_chars(text.data(), text.data() + text.size(), s);
    v = s;
  } else {
    uint64_t u = 0;
    std::from_chars(text.data(), text.data() + text.size(), u);
    v = u;
  }
  return v;
}

// A number read from a one-value result ("count()").
uint64_t SelectCount(clickhouse::Client& ch, const std::string& sql) {
  std::optional<uint64_t> count;
  ch.Select(sql, [&](clickhouse::Block& block) {
    if (block.RowCount() > 0 && !count) {
      const std::string text = block.At(0).Text(0);
      uint64_t v = 0;
      std::from_chars(text.data(), text.data() + text.size(), v);
      count = v;
    }
    return true;
  });
  if (!count) Fail(ErrorCode::kProtocol, "ClickHouse {} returned no row for: {}", ch.peer(), sql);
  return *count;
}

std::string Shorten(const std::string& text) {
  std::string out;
  for (unsigned char c : text.substr(0, 60)) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return text.size() > 60 ? out + "..." : out;
}

bool SameSchema(const tables::SourceTableSchema& a, const tables::SourceTableSchema& b) {
  if (a.columns.size() != b.columns.size() || a.primary_key != b.primary_key) return false;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    const auto& x = a.columns[i];
    const auto& y = b.columns[i];
    if (x.name != y.name || x.type != y.type || x.meta != y.meta || x.precision != y.precision ||
        x.scale != y.scale || x.is_unsigned != y.is_unsigned)
      return false;
  }
  return true;
}

}  // namespace

const char* DifferenceKindName(Difference::Kind kind) {
  switch (kind) {
    case Difference::Kind::kMissingInTarget:
      return "missing in target";
    case Difference::Kind::kExtraInTarget:
      return "extra in target";
    case Difference::Kind::kChanged:
      return "changed";
    case Difference::Kind::kDuplicateInSource:
      return "key in several source tables";
  }
  return "?";
}

TableCheckResult CheckTable(const TableCheckSpec& spec, mysql::Connection& source,
                            clickhouse::Client& target) {
  if (spec.sources.empty()) Fail(ErrorCode::kInternal, "check: no source table");
  TableCheckResult result;
  const tables::SourceTableSchema& first = *spec.sources.front().known;
  for (const tables::ReplicatedTable& s : spec.sources) {
    if (!result.sources.empty()) result.sources += ", ";
    result.sources += s.name.ToString();
    if (!SameSchema(*s.known, first))
      Fail(ErrorCode::kConfig,
           "check: source tables {} and {} go into one target but have different columns",
           first.name.ToString(), s.name.ToString());
  }
  const config::TableRule& rule = *spec.sources.front().rule;
  result.target = spec.target.database + "." + spec.target.table;
  const std::string target_table =
      clickhouse::QuoteQualified(spec.target.database, spec.target.table);

  std::vector<TargetColumn> target_columns;
  target.Select("DESCRIBE TABLE " + target_table, [&](clickhouse::Block& block) {
    for (size_t r = 0; r < block.RowCount(); ++r)
      target_columns.push_back({block.At(0).Text(r), block.At(1).Text(r)});
    return true;
  });
  auto has_target_column = [&](const std::string& name) {
    return std::any_of(target_columns.begin(), target_columns.end(),
                       [&](const TargetColumn& c) { return c.name == name; });
  };
  const bool replica = rule.mode == config::TableMode::kReplica;
  const config::MetaColumns& meta_columns = rule.meta_columns;
  for (const std::string& meta :
       replica ? std::vector<std::string>{meta_columns.is_deleted}
               : std::vector<std::string>{meta_columns.version, meta_columns.event_type}) {
    if (!has_target_column(meta))
      Fail(ErrorCode::kConfig, "check: target table {} has no meta column {} ({} mode)",
           result.target, meta, config::TableModeName(rule.mode));
  }

  RowNormalizer normalizer(spec.sources.front(), target_columns, spec.settings, result.problems);
  std::string key_list;
  for (uint32_t k : first.primary_key) {
    if (!key_list.empty()) key_list += ", ";
    key_list += clickhouse::QuoteIdentifier(first.columns[k].name);
  }
  const std::string is_deleted = clickhouse::QuoteIdentifier(meta_columns.is_deleted);
  const std::string version = clickhouse::QuoteIdentifier(meta_columns.version);
  const std::string event_type = clickhouse::QuoteIdentifier(meta_columns.event_type);

  // Counts.
  for (const tables::ReplicatedTable& s : spec.sources) {
    const auto n = source.QueryValue(fmt::format(
        "SELECT COUNT(*) FROM {}", mysql::QuoteQualified(s.name.database, s.name.table)));
    result.source_rows += n ? static_cast<uint64_t>(KeyNumber(*n)) : 0;
  }
  result.target_rows =
      replica ? SelectCount(target, fmt::format("SELECT count() FROM {} FINAL WHERE {} = 0",
                                                target_table, is_deleted))
              : SelectCount(target, fmt::format("SELECT count() FROM (SELECT argMax({}, {}) AS "
                                                "rowbridge_last FROM {} GROUP BY {}) WHERE "
                                                "rowbridge_last != 'delete'",
                                                event_type, version, target_table, key_list));

  // Ranges.
  const binlog::ColumnDef& key_def = normalizer.first_key_source();
  const bool chunked = IsIntegerType(key_def);
  const std::string source_key = mysql::QuoteIdentifier(key_def.name);
  const std::string target_key = clickhouse::QuoteIdentifier(key_def.name);
  std::optional<std::string> lo;
  RowBuffer source_rows, target_rows;
  for (;;) {
    std::optional<std::string> hi;
    if (chunked) {
      for (const tables::ReplicatedTable& s : spec.sources) {
        auto v = source.QueryValue(
            fmt::format("SELECT {0} FROM {1}{2} ORDER BY {0} LIMIT 1 OFFSET {3}", source_key,
                        mysql::QuoteQualified(s.name.database, s.name.table),
                        lo ? fmt::format(" WHERE {} > {}", source_key, *lo) : std::string(),
                        spec.chunk_rows - 1));
        if (v && (!hi || KeyNumber(*v) < KeyNumber(*hi))) hi = std::move(v);
      }
    }
    std::string source_where, target_where;
    if (lo) {
      source_where = fmt::format("{} > {}", source_key, *lo);
      target_where = fmt::format("{} > {}", target_key, *lo);
    }
    if (hi) {
      source_where +=
          fmt::format("{}{} <= {}", source_where.empty() ? "" : " AND ", source_key, *hi);
      target_where +=
          fmt::format("{}{} <= {}", target_where.empty() ? "" : " AND ", target_key, *hi);
    }
    ++result.ranges;
    source_rows.Clear();
    for (const tables::ReplicatedTable& s : spec.sources) {
      mysql::ResultSet rs =
          source.Query(fmt::format("SELECT {} FROM {}{}", normalizer.source_select_list(),
                                   mysql::QuoteQualified(s.name.database, s.name.table),
                                   source_where.empty() ? "" : " WHERE " + source_where));
      while (rs.Next()) normalizer.NormalizeSource(rs, source_rows.Add());
    }
    target_rows.Clear();
    const std::string range = target_where.empty() ? "1" : target_where;
    const std::string target_sql =
        replica ? fmt::format("SELECT {} FROM {} FINAL WHERE {} = 0 AND {}",
                              normalizer.target_select_list(), target_table, is_deleted, range)
                : fmt::format(
                      "SELECT {0} FROM {1} WHERE {2} AND ({3}, {4}) IN (SELECT {3}, "
                      "max({4}) FROM {1} WHERE {2} GROUP BY {3}) AND {5} != 'delete'",
                      normalizer.target_select_list(), target_table, range, key_list, version,
                      event_type);
    target.Select(target_sql, [&](clickhouse::Block& block) {
      for (size_t r = 0; r < block.RowCount(); ++r)
        normalizer.NormalizeTarget(block, r, target_rows.Add());
      return true;
    });

    if (source_rows.size() != target_rows.size() ||
        source_rows.Checksum() != target_rows.Checksum()) {
      ++result.ranges_differing;
      const auto s = source_rows.SortedByKey();
      const auto t = target_rows.SortedByKey();
      auto list = [&](Difference::Kind kind, const NormalizedRow& row, std::string detail) {
        if (result.listed.size() < spec.max_listed)
          result.listed.push_back({kind, normalizer.DescribeKey(row.key), std::move(detail)});
      };
      size_t i = 0, j = 0;
      while (i < s.size() || j < t.size()) {
        if (i < s.size() && i + 1 < s.size() && s[i]->key == s[i + 1]->key) {
          ++result.duplicates;
          list(Difference::Kind::kDuplicateInSource, *s[i], "");
          ++i;
          continue;
        }
        if (j == t.size() || (i < s.size() && s[i]->key < t[j]->key)) {
          ++result.missing;
          list(Difference::Kind::kMissingInTarget, *s[i], "");
          ++i;
        } else if (i == s.size() || t[j]->key < s[i]->key) {
          ++result.extra;
          list(Difference::Kind::kExtraInTarget, *t[j], "");
          ++j;
        } else {
          if (s[i]->hash != t[j]->hash || s[i]->values != t[j]->values) {
            ++result.changed;
            std::string detail;
            int shown = 0;
            for (size_t c = 0; c < normalizer.column_count(); ++c) {
              if (s[i]->values[c] == t[j]->values[c]) continue;
              if (shown++ == 3) {
                detail += ", ...";
                break;
              }
              detail += fmt::format("{}{}: source '{}', target '{}'", detail.empty() ? "" : "; ",
                                    normalizer.column_name(c), Shorten(s[i]->values[c]),
                                    Shorten(t[j]->values[c]));
            }
            list(Difference::Kind::kChanged, *s[i], std::move(detail));
          }
          ++i;
          ++j;
        }
      }
    }
    if (!chunked || !hi) break;
    lo = std::move(hi);
  }
  return result;
}

}  // namespace rowbridge::check
