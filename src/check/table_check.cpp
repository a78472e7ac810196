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

namespace {

// One table's comparison: counts, then the key's ranges one by one (the whole table in one range
// when the key is not an integer), each compared by checksum and, where it differs, row by row.
class TableChecker {
 public:
  TableChecker(const TableCheckSpec& spec, mysql::Connection& source, clickhouse::Client& target)
      : spec_(spec),
        source_(source),
        target_(target),
        first_(*spec.sources.front().known),
        rule_(*spec.sources.front().rule),
        replica_(rule_.mode == config::TableMode::kReplica),
        target_table_(clickhouse::QuoteQualified(spec.target.database, spec.target.table)),
        is_deleted_(clickhouse::QuoteIdentifier(rule_.meta_columns.is_deleted)),
        version_(clickhouse::QuoteIdentifier(rule_.meta_columns.version)),
        event_type_(clickhouse::QuoteIdentifier(rule_.meta_columns.event_type)) {
    result_.target = spec.target.database + "." + spec.target.table;
  }

  TableCheckResult Run() {
    RequireSameSourceColumns();
    ReadTargetColumns();
    RequireMetaColumns();
    RowNormalizer normalizer(spec_.sources.front(), target_columns_, spec_.settings,
                             result_.problems);
    for (uint32_t k : first_.primary_key) {
      if (!key_list_.empty()) key_list_ += ", ";
      key_list_ += clickhouse::QuoteIdentifier(first_.columns[k].name);
    }
    CountRows();
    CompareRanges(normalizer);
    return std::move(result_);
  }

 private:
  // Tables merged into one target must agree, or their rows cannot be compared as one.
  void RequireSameSourceColumns() {
    for (const tables::ReplicatedTable& s : spec_.sources) {
      if (!result_.sources.empty()) result_.sources += ", ";
      result_.sources += s.name.ToString();
      if (!SameSchema(*s.known, first_))
        Fail(ErrorCode::kConfig,
             "check: source tables {} and {} go into one target but have different columns",
             first_.name.ToString(), s.name.ToString());
    }
  }

  void ReadTargetColumns() {
    target_.Select("DESCRIBE TABLE " + target_table_, [&](clickhouse::Block& block) {
      for (size_t r = 0; r < block.RowCount(); ++r)
        target_columns_.push_back({block.At(0).Text(r), block.At(1).Text(r)});
      return true;
    });
  }

  void RequireMetaColumns() const {
    const config::MetaColumns& meta_columns = rule_.meta_columns;
    for (const std::string& meta :
         replica_ ? std::vector<std::string>{meta_columns.is_deleted}
                  : std::vector<std::string>{meta_columns.version, meta_columns.event_type}) {
      const bool present = std::any_of(target_columns_.begin(), target_columns_.end(),
                                       [&](const TargetColumn& c) { return c.name == meta; });
      if (!present)
        Fail(ErrorCode::kConfig, "check: target table {} has no meta column {} ({} mode)",
             result_.target, meta, config::TableModeName(rule_.mode));
    }
  }

  void CountRows() {
    for (const tables::ReplicatedTable& s : spec_.sources) {
      const auto n = source_.QueryValue(fmt::format(
          "SELECT COUNT(*) FROM {}", mysql::QuoteQualified(s.name.database, s.name.table)));
      result_.source_rows += n ? static_cast<uint64_t>(KeyNumber(*n)) : 0;
    }
    result_.target_rows =
        replica_
            ? SelectCount(target_, fmt::format("SELECT count() FROM {} FINAL WHERE {} = 0",
                                               target_table_, is_deleted_))
            : SelectCount(target_, fmt::format("SELECT count() FROM (SELECT argMax({}, {}) AS "
                                               "rowbridge_last FROM {} GROUP BY {}) WHERE "
                                               "rowbridge_last != 'delete'",
                                               event_type_, version_, target_table_, key_list_));
  }

  void CompareRanges(RowNormalizer& normalizer) {
    const binlog::ColumnDef& key_def = normalizer.first_key_source();
    const bool chunked = IsIntegerType(key_def);
    const std::string source_key = mysql::QuoteIdentifier(key_def.name);
    const std::string target_key = clickhouse::QuoteIdentifier(key_def.name);
    std::optional<std::string> lo;
    for (;;) {
      std::optional<std::string> hi;
      if (chunked) hi = RangeEnd(source_key, lo);
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
      ++result_.ranges;
      const std::string target_sql =
          TargetRangeSql(normalizer, target_where.empty() ? "1" : target_where);
      ReadSourceRange(normalizer, source_where);
      ReadTargetRange(normalizer, target_sql);
      if (source_rows_.size() != target_rows_.size() ||
          source_rows_.Checksum() != target_rows_.Checksum()) {
        ++result_.ranges_differing;
        ListDifferences(normalizer);
        if (spec_.repairer != nullptr)
          spec_.repairer->Repair(normalizer, {source_where, target_sql});
      }
      if (!chunked || !hi) break;
      if (spec_.stop != nullptr && spec_.stop->load()) {
        result_.stopped = true;
        break;
      }
      lo = std::move(hi);
    }
  }

  // The key chunk_rows rows on from `lo` in the source table that ends first; none when every
  // table has fewer left.
  std::optional<std::string> RangeEnd(const std::string& source_key,
                                      const std::optional<std::string>& lo) {
    std::optional<std::string> hi;
    for (const tables::ReplicatedTable& s : spec_.sources) {
      auto v = source_.QueryValue(
          fmt::format("SELECT {0} FROM {1}{2} ORDER BY {0} LIMIT 1 OFFSET {3}", source_key,
                      mysql::QuoteQualified(s.name.database, s.name.table),
                      lo ? fmt::format(" WHERE {} > {}", source_key, *lo) : std::string(),
                      spec_.chunk_rows - 1));
      if (v && (!hi || KeyNumber(*v) < KeyNumber(*hi))) hi = std::move(v);
    }
    return hi;
  }

  void ReadSourceRange(RowNormalizer& normalizer, const std::string& where) {
    source_rows_.Clear();
    for (const tables::ReplicatedTable& s : spec_.sources) {
      mysql::ResultSet rs =
          source_.Query(fmt::format("SELECT {} FROM {}{}", normalizer.source_select_list(),
                                    mysql::QuoteQualified(s.name.database, s.name.table),
                                    where.empty() ? "" : " WHERE " + where));
      while (rs.Next()) normalizer.NormalizeSource(rs, source_rows_.Add());
    }
  }

  // The target's current rows of the range.
  std::string TargetRangeSql(const RowNormalizer& normalizer, const std::string& range) const {
    return fmt::format("SELECT {} {}", normalizer.target_select_list(),
                       CurrentRowsClause(rule_, target_table_, key_list_, range));
  }

  void ReadTargetRange(RowNormalizer& normalizer, const std::string& sql) {
    target_rows_.Clear();
    target_.Select(sql, [&](clickhouse::Block& block) {
      for (size_t r = 0; r < block.RowCount(); ++r)
        normalizer.NormalizeTarget(block, r, target_rows_.Add());
      return true;
    });
  }

  // A merge of the two sides sorted by key: each difference counted, the first max_listed listed.
  void ListDifferences(const RowNormalizer& normalizer) {
    const auto s = source_rows_.SortedByKey();
    const auto t = target_rows_.SortedByKey();
    auto list = [&](Difference::Kind kind, const NormalizedRow& row, std::string detail) {
      if (result_.listed.size() < spec_.max_listed)
        result_.listed.push_back({kind, normalizer.DescribeKey(row.key), std::move(detail)});
    };
    size_t i = 0, j = 0;
    while (i < s.size() || j < t.size()) {
      if (i < s.size() && i + 1 < s.size() && s[i]->key == s[i + 1]->key) {
        ++result_.duplicates;
        list(Difference::Kind::kDuplicateInSource, *s[i], "");
        ++i;
        continue;
      }
      if (j == t.size() || (i < s.size() && s[i]->key < t[j]->key)) {
        ++result_.missing;
        list(Difference::Kind::kMissingInTarget, *s[i], "");
        ++i;
      } else if (i == s.size() || t[j]->key < s[i]->key) {
        ++result_.extra;
        list(Difference::Kind::kExtraInTarget, *t[j], "");
        ++j;
      } else {
        if (s[i]->hash != t[j]->hash || s[i]->values != t[j]->values) {
          ++result_.changed;
          list(Difference::Kind::kChanged, *s[i], DescribeChange(normalizer, *s[i], *t[j]));
        }
        ++i;
        ++j;
      }
    }
  }

  // The first three columns that differ, with both values.
  static std::string DescribeChange(const RowNormalizer& normalizer, const NormalizedRow& s,
                                    const NormalizedRow& t) {
    std::string detail;
    int shown = 0;
    for (size_t c = 0; c < normalizer.column_count(); ++c) {
      if (s.values[c] == t.values[c]) continue;
      if (shown++ == 3) {
        detail += ", ...";
        break;
      }
      detail += fmt::format("{}{}: source '{}', target '{}'", detail.empty() ? "" : "; ",
                            normalizer.column_name(c), Shorten(s.values[c]), Shorten(t.values[c]));
    }
    return detail;
  }

  const TableCheckSpec& spec_;
  mysql::Connection& source_;
  clickhouse::Client& target_;
  const tables::SourceTableSchema& first_;
  const config::TableRule& rule_;
  const bool replica_;
  const std::string target_table_;
  const std::string is_deleted_, version_, event_type_;  // quoted meta columns
  std::string key_list_;                                 // quoted primary key columns
  std::vector<TargetColumn> target_columns_;
  RowBuffer source_rows_, target_rows_;  // reused from range to range
  TableCheckResult result_;
};

}  // namespace

std::string CurrentRowsClause(const config::TableRule& rule, const std::string& quoted_table,
                              const std::string& quoted_keys, const std::string& condition) {
  const config::MetaColumns& meta = rule.meta_columns;
  if (rule.mode == config::TableMode::kReplica) {
    return fmt::format("FROM {} FINAL WHERE {} = 0 AND {}", quoted_table,
                       clickhouse::QuoteIdentifier(meta.is_deleted), condition);
  }
  return fmt::format(
      "FROM {0} WHERE {1} AND ({2}, {3}) IN (SELECT {2}, max({3}) FROM {0} WHERE {1} GROUP BY "
      "{2}) AND {4} != 'delete'",
      quoted_table, condition, quoted_keys, clickhouse::QuoteIdentifier(meta.version),
      clickhouse::QuoteIdentifier(meta.event_type));
}

TableCheckResult CheckTable(const TableCheckSpec& spec, mysql::Connection& source,
                            clickhouse::Client& target) {
  if (spec.sources.empty()) Fail(ErrorCode::kInternal, "check: no source table");
  return TableChecker(spec, source, target).Run();
}

}  // namespace rowbridge::check
