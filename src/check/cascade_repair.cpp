#include "check/cascade_repair.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "check/check_tables.h"
#include "check/range_repair.h"
#include "check/row_normalizer.h"
#include "check/table_check.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "endpoints/connection_options.h"
#include "mysql/sql_quote.h"
#include "tables/source_schema.h"

namespace rowbridge::check {

namespace {

// Tuples per IN list.
constexpr size_t kTuplesPerQuery = 500;

bool LooksNumeric(std::string_view text) {
  if (text.empty()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!(std::isdigit(static_cast<unsigned char>(c)) || (i == 0 && c == '-'))) return false;
  }
  return true;
}

std::string TupleKey(const KeyTuples& t, size_t i) {
  std::string key;
  for (size_t c = 0; c < t.width; ++c) {
    key += t.values[i * t.width + c];
    key += '\0';
  }
  return key;
}

void AddUnique(KeyTuples& into, const KeyTuples& from, std::set<std::string>& seen) {
  into.width = from.width;
  for (size_t i = 0; i < from.size(); ++i) {
    if (!seen.insert(TupleKey(from, i)).second) continue;
    for (size_t c = 0; c < from.width; ++c) into.values.push_back(from.values[i * from.width + c]);
  }
}

}  // namespace

struct CascadeRepairer::Child {
  std::vector<tables::ReplicatedTable> sources;
  config::QualifiedName target;
  std::string target_table;  // quoted
  std::string key_list;      // quoted for ClickHouse
  std::vector<std::string> key_names;
  std::unique_ptr<RowNormalizer> normalizer;
  std::unique_ptr<RangeRepairer> repairer;
  const config::TableRule& rule() const { return *sources.front().rule; }
};

CascadeRepairer::CascadeRepairer(const config::Config& config, const tables::ForeignKeyGraph& graph)
    : config_(config), graph_(graph) {
  const std::string program = "rowbridge cascade repair";
  source_ = ConnectCheckSource(config.source, program);
  target_ = ConnectCheckTarget(config.target, program);
  catalog_ = std::make_unique<tables::TargetCatalog>(endpoints::TargetClientOptions(config.target));
  tables::ResolverOptions options;
  options.dry_run = true;
  resolver_ = std::make_unique<tables::TableResolver>(config, *catalog_, std::move(options));
  listed_ = tables::ListSourceTables(*source_);
}

CascadeRepairer::~CascadeRepairer() = default;

const tables::SourceTableSchema& CascadeRepairer::SchemaOf(const tables::SourceTableName& name) {
  auto it = schemas_.find(name);
  if (it != schemas_.end()) return it->second;
  std::optional<tables::SourceTableSchema> schema =
      tables::LoadSourceTableSchema(*source_, name.database, name.table);
  if (!schema)
    Fail(ErrorCode::kConfig, "cascade repair: source table {} does not exist", name.ToString());
  return schemas_.emplace(name, std::move(*schema)).first->second;
}

CascadeRepairer::Child* CascadeRepairer::Replicated(const tables::SourceTableName& name) {
  auto it = children_.find(name);
  if (it != children_.end()) return it->second.get();
  std::unique_ptr<Child> child;
  std::map<std::string, TargetGroup> groups = GroupByTarget(*resolver_, listed_, {name.ToString()});
  if (groups.empty() && std::find(listed_.begin(), listed_.end(), name) == listed_.end()) {
    listed_ = tables::ListSourceTables(*source_);  // created since this repairer began
    groups = GroupByTarget(*resolver_, listed_, {name.ToString()});
  }
  if (!groups.empty()) {
    const TargetGroup& group = groups.begin()->second;
    child = std::make_unique<Child>();
    std::vector<mapping::PlanOptions> plans;
    for (const tables::SourceTableName& s : group.sources) {
      child->sources.push_back(LoadSourceTable(*source_, *resolver_, s, group.rule));
      const tables::SourceTableSchema& schema = *child->sources.back().known;
      std::vector<std::string> keys;
      for (uint32_t k : schema.primary_key) keys.push_back(schema.columns[k].name);
      plans.push_back(resolver_->PlanOptionsFor(child->sources.back(), std::move(keys)));
    }
    child->target = group.target;
    child->target_table = clickhouse::QuoteQualified(group.target.database, group.target.table);
    const tables::SourceTableSchema& first = *child->sources.front().known;
    for (uint32_t k : first.primary_key) {
      child->key_names.push_back(first.columns[k].name);
      if (!child->key_list.empty()) child->key_list += ", ";
      child->key_list += clickhouse::QuoteIdentifier(first.columns[k].name);
    }
    std::vector<TargetColumn> described;
    target_->Select("DESCRIBE TABLE " + child->target_table, [&](clickhouse::Block& block) {
      for (size_t r = 0; r < block.RowCount(); ++r)
        described.push_back({block.At(0).Text(r), block.At(1).Text(r)});
      return true;
    });
    std::vector<std::string> problems;
    const mapping::ConverterSettings settings = plans.front().converter;
    child->normalizer =
        std::make_unique<RowNormalizer>(child->sources.front(), described, settings, problems);
    const std::optional<std::vector<mapping::TargetColumn>> columns =
        catalog_->ReadColumns(group.target.database, group.target.table);
    if (!columns)
      Fail(ErrorCode::kConfig, "cascade repair: target table {}.{} does not exist",
           group.target.database, group.target.table);
    child->repairer = std::make_unique<RangeRepairer>(
        child->sources, std::move(plans), group.target, *columns, 0, *source_, *target_, nullptr);
  }
  Child* raw = child.get();
  children_.emplace(name, std::move(child));
  return raw;
}

std::string CascadeRepairer::InList(const tables::SourceTableName& table,
                                    const std::vector<std::string>& columns,
                                    const KeyTuples& values, size_t from, size_t to,
                                    bool mysql_side) {
  to = std::min(to, values.size());
  if (from >= to) return "0";
  const tables::SourceTableSchema& schema = SchemaOf(table);
  std::vector<bool> numeric;
  for (const std::string& name : columns) {
    auto it = std::find_if(schema.columns.begin(), schema.columns.end(),
                           [&](const binlog::ColumnDef& c) { return c.name == name; });
    if (it == schema.columns.end())
      Fail(ErrorCode::kConfig, "cascade repair: {} has no column {}", table.ToString(), name);
    if (!tables::IsCascadeIntegerKey(it->type) && !tables::IsCascadeStringKey(it->type))
      Fail(ErrorCode::kUnsupported,
           "column {}.{} of a foreign key is neither an integer nor a string, so rowbridge cannot "
           "address the rows a cascade changed",
           table.ToString(), name);
    numeric.push_back(tables::IsCascadeIntegerKey(it->type));
  }
  auto quote_name = [&](const std::string& n) {
    return mysql_side ? mysql::QuoteIdentifier(n) : clickhouse::QuoteIdentifier(n);
  };
  const bool tuple = columns.size() > 1;
  std::string sql;
  if (tuple) sql += "(";
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) sql += ", ";
    sql += quote_name(columns[c]);
  }
  sql += tuple ? ") IN (" : " IN (";
  for (size_t i = from; i < to; ++i) {
    if (i > from) sql += ", ";
    if (tuple) sql += "(";
    for (size_t c = 0; c < values.width; ++c) {
      if (c) sql += ", ";
      const std::string& v = values.values[i * values.width + c];
      if (numeric[c] && LooksNumeric(v)) {
        sql += v;
      } else {
        sql += mysql_side ? mysql::QuoteString(v) : clickhouse::QuoteString(v);
      }
    }
    if (tuple) sql += ")";
  }
  return sql + ")";
}

KeyTuples CascadeRepairer::SourceValues(const tables::SourceTableName& table,
                                        const std::vector<std::string>& columns,
                                        const std::string& where) {
  std::string list;
  std::string not_null;
  for (const std::string& c : columns) {
    if (!list.empty()) list += ", ";
    list += mysql::QuoteIdentifier(c);
    not_null += " AND " + mysql::QuoteIdentifier(c) + " IS NOT NULL";
  }
  KeyTuples out;
  out.width = columns.size();
  mysql::ResultSet rs = source_->Query(
      fmt::format("SELECT DISTINCT {} FROM {} WHERE ({}){}", list,
                  mysql::QuoteQualified(table.database, table.table), where, not_null));
  while (rs.Next()) {
    for (size_t c = 0; c < columns.size(); ++c) out.values.emplace_back(rs.Field(c));
  }
  return out;
}

KeyTuples CascadeRepairer::TargetValues(Child& child, const std::vector<std::string>& columns,
                                        const std::string& condition) {
  std::string list;
  std::string not_null;
  for (const std::string& c : columns) {
    if (!list.empty()) list += ", ";
    list += clickhouse::QuoteIdentifier(c);
    not_null += " AND " + clickhouse::QuoteIdentifier(c) + " IS NOT NULL";
  }
  KeyTuples out;
  out.width = columns.size();
  target_->Select(fmt::format("SELECT DISTINCT {} {}", list,
                              CurrentRowsClause(child.rule(), child.target_table, child.key_list,
                                                "(" + condition + ")" + not_null)),
                  [&](clickhouse::Block& block) {
                    for (size_t r = 0; r < block.RowCount(); ++r) {
                      for (size_t c = 0; c < columns.size(); ++c)
                        out.values.push_back(block.At(c).Text(r));
                    }
                    return true;
                  });
  return out;
}

KeyTuples CascadeRepairer::GoneParentValues(const tables::ForeignKey& key) {
  Child* grandchild = Replicated(key.child);
  KeyTuples gone;
  gone.width = key.parent_columns.size();
  if (grandchild == nullptr) return gone;
  const KeyTuples held = TargetValues(*grandchild, key.child_columns, "1");
  for (size_t from = 0; from < held.size(); from += kTuplesPerQuery) {
    const KeyTuples present = SourceValues(
        key.parent, key.parent_columns,
        InList(key.parent, key.parent_columns, held, from, from + kTuplesPerQuery, true));
    std::set<std::string> there;
    for (size_t i = 0; i < present.size(); ++i) there.insert(TupleKey(present, i));
    for (size_t i = from; i < std::min(held.size(), from + kTuplesPerQuery); ++i) {
      if (there.count(TupleKey(held, i))) continue;
      for (size_t c = 0; c < held.width; ++c)
        gone.values.push_back(held.values[i * held.width + c]);
    }
  }
  return gone;
}

void CascadeRepairer::Repair(const tables::ForeignKey& key, const KeyTuples& values,
                             uint64_t version, const std::set<std::string>& skipped) {
  std::map<const tables::ForeignKey*, std::set<std::string>> done;
  RepairRelation(key, values, version, skipped, done);
}

void CascadeRepairer::RepairRelation(
    const tables::ForeignKey& key, const KeyTuples& values, uint64_t version,
    const std::set<std::string>& skipped,
    std::map<const tables::ForeignKey*, std::set<std::string>>& done) {
  KeyTuples todo;
  AddUnique(todo, values, done[&key]);
  if (todo.empty()) return;
  const tables::SourceTableName& table = key.child;
  const std::vector<const tables::ForeignKey*>& kids = graph_.CascadingChildren(table);
  Child* child = skipped.count(table.ToString()) ? nullptr : Replicated(table);
  std::vector<KeyTuples> next(kids.size());
  std::vector<std::set<std::string>> next_seen(kids.size());
  for (size_t from = 0; from < todo.size(); from += kTuplesPerQuery) {
    const size_t to = from + kTuplesPerQuery;
    const std::string source_fk = InList(table, key.child_columns, todo, from, to, true);
    if (child == nullptr) {
      // Not replicated: nothing to write, but its replicated children cascade on.
      for (size_t k = 0; k < kids.size(); ++k) {
        AddUnique(next[k], SourceValues(table, kids[k]->parent_columns, source_fk), next_seen[k]);
        AddUnique(next[k], GoneParentValues(*kids[k]), next_seen[k]);
      }
      continue;
    }
    const std::string target_fk = InList(table, key.child_columns, todo, from, to, false);
    const KeyTuples source_keys = SourceValues(table, child->key_names, source_fk);
    const KeyTuples target_keys = TargetValues(*child, child->key_names, target_fk);
    std::string source_where = source_fk;
    for (size_t i = 0; i < target_keys.size(); i += kTuplesPerQuery) {
      source_where +=
          " OR " + InList(table, child->key_names, target_keys, i, i + kTuplesPerQuery, true);
    }
    std::string target_condition = target_fk;
    for (size_t i = 0; i < source_keys.size(); i += kTuplesPerQuery) {
      target_condition +=
          " OR " + InList(table, child->key_names, source_keys, i, i + kTuplesPerQuery, false);
    }
    // The values its own children reference, before (target) and after (source) the repair.
    for (size_t k = 0; k < kids.size(); ++k) {
      AddUnique(next[k], TargetValues(*child, kids[k]->parent_columns, target_condition),
                next_seen[k]);
      AddUnique(next[k], SourceValues(table, kids[k]->parent_columns, source_where), next_seen[k]);
    }
    CheckedRange range;
    range.source_where = "(" + source_where + ")";
    range.target_rows_sql =
        fmt::format("SELECT {} {}", child->normalizer->target_select_list(),
                    CurrentRowsClause(child->rule(), child->target_table, child->key_list,
                                      "(" + target_condition + ")"));
    const RepairCounts before = child->repairer->counts();
    child->repairer->UseOneVersion(version);
    child->repairer->Repair(*child->normalizer, range);
    const RepairCounts& after = child->repairer->counts();
    counts_.rows_written += after.rows_written - before.rows_written;
    counts_.keys_deleted += after.keys_deleted - before.keys_deleted;
  }
  if (child != nullptr) ++counts_.tables;
  for (size_t k = 0; k < kids.size(); ++k) {
    if (!next[k].empty()) RepairRelation(*kids[k], next[k], version, skipped, done);
  }
}

}  // namespace rowbridge::check
