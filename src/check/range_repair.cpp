#include "check/range_repair.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "check/table_check.h"
#include "clickhouse/sql_quote.h"
#include "clickhouse/type_name.h"
#include "common/error.h"
#include "mysql/sql_quote.h"

namespace rowbridge::check {

namespace {

constexpr uint64_t kBand = uint64_t{1} << 48;
// Rows per block of a range's INSERT, and keys per delete statement.
constexpr size_t kBlockRows = 8192;
constexpr size_t kKeysPerDelete = 1000;

bool IsNumeric(clickhouse::TypeCode code) {
  return clickhouse::IsIntegerCode(code) || code == clickhouse::TypeCode::kFloat32 ||
         code == clickhouse::TypeCode::kFloat64;
}

// The normalised key's column texts.
std::vector<std::string_view> SplitKey(std::string_view key) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos < key.size()) {
    const size_t end = key.find('\0', pos);
    parts.push_back(key.substr(pos, end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return parts;
}

}  // namespace

RangeRepairer::RangeRepairer(std::vector<tables::ReplicatedTable> sources,
                             std::vector<mapping::PlanOptions> plans, config::QualifiedName target,
                             const std::vector<mapping::TargetColumn>& columns,
                             uint64_t version_base, mysql::Connection& source,
                             clickhouse::Client& client,
                             std::function<void(mysql::Connection&)> before_range)
    : sources_(std::move(sources)),
      target_(std::move(target)),
      target_label_(target_.database + "." + target_.table),
      target_table_(clickhouse::QuoteQualified(target_.database, target_.table)),
      version_base_(version_base),
      next_version_(version_base),
      source_(source),
      client_(client),
      before_range_(std::move(before_range)) {
  if (sources_.empty() || plans.size() != sources_.size())
    Fail(ErrorCode::kInternal, "repair of {}: no source tables", target_label_);
  const config::TableRule& rule = *sources_.front().rule;
  replica_ = rule.mode == config::TableMode::kReplica;
  version_column_ = rule.meta_columns.version;
  is_deleted_column_ = rule.meta_columns.is_deleted;
  event_type_column_ = rule.meta_columns.event_type;

  for (size_t i = 0; i < sources_.size(); ++i) {
    const tables::ReplicatedTable& s = sources_[i];
    SourcePlan p;
    for (const binlog::ColumnDef& c : s.known->columns)
      p.selected.push_back(mapping::SelectedColumn(c));
    for (size_t c = 0; c < s.known->columns.size(); ++c) {
      if (c) p.select_list += ", ";
      p.select_list += mapping::TextSelectExpression(
          s.known->columns[c], mysql::QuoteIdentifier(s.known->columns[c].name));
    }
    p.encoder = std::make_unique<mapping::TextRowEncoder>(p.selected, s.name.ToString());
    p.plan = mapping::ConversionPlan::Build(p.selected, columns, plans[i]);
    p.insert_sql = p.plan.InsertQuery(target_.database, target_.table);
    plans_.push_back(std::move(p));
  }
  const tables::SourceTableSchema& first = *sources_.front().known;
  for (uint32_t k : first.primary_key) {
    const std::string& name = first.columns[k].name;
    key_names_.push_back(clickhouse::QuoteIdentifier(name));
    auto it = std::find_if(columns.begin(), columns.end(),
                           [&](const mapping::TargetColumn& c) { return c.name == name; });
    clickhouse::TypeDesc type = it == columns.end() ? clickhouse::TypeDesc{} : it->type;
    while (type.code == clickhouse::TypeCode::kLowCardinality && !type.nested.empty())
      type = type.nested.front();
    key_numeric_.push_back(IsNumeric(type.code));
  }
  key_list_ = fmt::format("{}", fmt::join(key_names_, ", "));
  for (const mapping::TargetColumn& c : plans_.front().plan.insert_columns()) {
    if (c.name == version_column_ || c.name == is_deleted_column_ || c.name == event_type_column_)
      continue;
    copied_columns_.push_back(clickhouse::QuoteIdentifier(c.name));
  }
}

uint64_t RangeRepairer::TakeVersion() {
  if (one_version_) return version_base_;
  if (next_version_ - version_base_ >= kBand)
    Fail(ErrorCode::kInternal, "repair of {}: its version band is used up", target_label_);
  return next_version_++;
}

void RangeRepairer::Repair(RowNormalizer& normalizer, const CheckedRange& range) {
  if (before_range_) before_range_(source_);
  ReadTarget(normalizer, range);
  WriteSourceRows(normalizer, range);
  DeleteExtraKeys(normalizer, range);
  ++counts_.ranges;
}

void RangeRepairer::ReadTarget(RowNormalizer& normalizer, const CheckedRange& range) {
  target_rows_.clear();
  client_.Select(range.target_rows_sql, [&](clickhouse::Block& block) {
    for (size_t r = 0; r < block.RowCount(); ++r) {
      normalizer.NormalizeTarget(block, r, scratch_);
      TargetRow& row = target_rows_[scratch_.key];
      row.hash = scratch_.hash;
      row.values = scratch_.values;
    }
    return true;
  });
}

void RangeRepairer::WriteSourceRows(RowNormalizer& normalizer, const CheckedRange& range) {
  // A key in several source tables is not this repair's to decide.
  std::set<std::string> seen_keys, shared_keys;
  for (const tables::ReplicatedTable& s : sources_) {
    if (sources_.size() == 1) break;
    mysql::ResultSet rs = source_.Query(
        fmt::format("SELECT {} FROM {}{}", normalizer.source_select_list(),
                    mysql::QuoteQualified(s.name.database, s.name.table),
                    range.source_where.empty() ? "" : " WHERE " + range.source_where));
    while (rs.Next()) {
      normalizer.NormalizeSource(rs, scratch_);
      if (!seen_keys.insert(scratch_.key).second) shared_keys.insert(scratch_.key);
    }
  }
  counts_.keys_shared += shared_keys.size();

  std::vector<std::optional<std::string_view>> fields;
  for (size_t i = 0; i < sources_.size(); ++i) {
    const tables::ReplicatedTable& s = sources_[i];
    SourcePlan& p = plans_[i];
    const size_t compared = normalizer.column_count();
    mysql::ResultSet rs = source_.Query(
        fmt::format("SELECT {}, {} FROM {}{}", normalizer.source_select_list(), p.select_list,
                    mysql::QuoteQualified(s.name.database, s.name.table),
                    range.source_where.empty() ? "" : " WHERE " + range.source_where));
    mapping::TargetBlock block = p.plan.NewBlock();
    bool begun = false;
    auto send = [&] {
      if (block.rows() == 0) return;
      if (!begun) {
        client_.BeginInsert(p.insert_sql);
        begun = true;
      }
      client_.SendBlock(block.block());
      block.Clear();
    };
    while (rs.Next()) {
      normalizer.NormalizeSource(rs, scratch_);
      if (shared_keys.count(scratch_.key)) continue;
      auto t = target_rows_.find(scratch_.key);
      mapping::RowKind kind = mapping::RowKind::kInsert;
      if (t != target_rows_.end()) {
        ++t->second.seen;
        if (t->second.hash == scratch_.hash && t->second.values == scratch_.values) continue;
        kind = mapping::RowKind::kUpdate;
      }
      fields.resize(p.selected.size());
      for (size_t c = 0; c < p.selected.size(); ++c) fields[c] = rs.Get(compared + c);
      p.plan.AppendRow(p.encoder->Encode(fields), block, {kind, TakeVersion()});
      ++counts_.rows_written;
      if (block.rows() >= kBlockRows) send();
    }
    send();
    if (begun) client_.EndInsert();
  }
  for (const std::string& key : shared_keys) {
    if (auto t = target_rows_.find(key); t != target_rows_.end()) t->second.seen = 1;
  }
}

std::string RangeRepairer::KeyCondition(const std::vector<const std::string*>& keys) const {
  const bool tuple = key_names_.size() > 1;
  std::string sql = tuple ? "(" + key_list_ + ")" : key_names_.front();
  sql += " IN (";
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) sql += ", ";
    const std::vector<std::string_view> parts = SplitKey(*keys[i]);
    if (tuple) sql += "(";
    for (size_t k = 0; k < key_names_.size(); ++k) {
      if (k) sql += ", ";
      const std::string_view text = k < parts.size() ? parts[k] : std::string_view();
      sql += key_numeric_[k] ? std::string(text) : clickhouse::QuoteString(text);
    }
    if (tuple) sql += ")";
  }
  return sql + ")";
}

std::string RangeRepairer::CurrentRows(const std::string& condition) const {
  return CurrentRowsClause(*sources_.front().rule, target_table_, key_list_, condition);
}

void RangeRepairer::DeleteExtraKeys(RowNormalizer& normalizer, const CheckedRange& range) {
  // Copies: the check of a batch below may read the target's rows again.
  std::vector<std::string> extra_keys;
  for (const auto& [key, row] : target_rows_) {
    if (row.seen == 0) extra_keys.push_back(key);
  }
  std::sort(extra_keys.begin(), extra_keys.end());
  std::vector<const std::string*> extra;
  for (const std::string& key : extra_keys) extra.push_back(&key);
  const std::string columns = fmt::format("{}", fmt::join(copied_columns_, ", "));
  const std::string meta =
      fmt::format("{}, {}", clickhouse::QuoteIdentifier(version_column_),
                  clickhouse::QuoteIdentifier(replica_ ? is_deleted_column_ : event_type_column_));
  for (size_t from = 0; from < extra.size(); from += kKeysPerDelete) {
    const std::vector<const std::string*> batch(
        extra.begin() + static_cast<long>(from),
        extra.begin() + static_cast<long>(std::min(extra.size(), from + kKeysPerDelete)));
    // The literals must select these keys and no other: a literal ClickHouse reads as another
    // value (a DateTime in another time zone) would delete a row the source has.
    std::set<std::string> selected;
    client_.Select(fmt::format("SELECT {} {}", normalizer.target_select_list(),
                               CurrentRows(KeyCondition(batch))),
                   [&](clickhouse::Block& block) {
                     for (size_t r = 0; r < block.RowCount(); ++r) {
                       normalizer.NormalizeTarget(block, r, scratch_);
                       selected.insert(scratch_.key);
                     }
                     return true;
                   });
    std::set<std::string> wanted;
    for (const std::string* k : batch) wanted.insert(*k);
    bool addressable =
        std::includes(wanted.begin(), wanted.end(), selected.begin(), selected.end());
    if (addressable && selected != wanted) {
      // A wanted key not selected is fine if the stream deleted it meanwhile; if the target
      // still has it, its literal reads as another value and the row would stay.
      ReadTarget(normalizer, range);
      for (const std::string& key : wanted) {
        if (!selected.count(key) && target_rows_.count(key)) addressable = false;
      }
    }
    if (!addressable) {
      Fail(ErrorCode::kUnsupported,
           "repair of {}: the keys only the target has ({} of them, e.g. {}) cannot be addressed "
           "by literals of the key's type (they select {} rows); copy the table again with "
           "`rowbridge resnapshot`",
           target_label_, wanted.size(), normalizer.DescribeKey(*batch.front()), selected.size());
    }
    if (selected.empty()) continue;
    std::vector<const std::string*> keys;
    for (const std::string& key : selected) keys.push_back(&key);
    const uint64_t version = TakeVersion();
    client_.Execute(fmt::format("INSERT INTO {} ({}, {}) SELECT {}, {}, {} {}", target_table_,
                                columns, meta, columns, version, replica_ ? "1" : "'delete'",
                                CurrentRows(KeyCondition(keys))));
    counts_.keys_deleted += selected.size();
  }
}

}  // namespace rowbridge::check
