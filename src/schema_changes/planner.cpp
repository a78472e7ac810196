#include "schema_changes/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "config/table_matcher.h"
#include "tables/replicated_table.h"

namespace rowbridge::schema_changes {

namespace {

using Kind = schema::TableChange::Kind;

bool SameColumns(const std::vector<binlog::ColumnDef>& a, const std::vector<binlog::ColumnDef>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!schema::SameColumn(a[i], b[i])) return false;
  return true;
}

tables::SourceTableName NameOf(const schema::TableRef& ref) {
  return {ref.database, ref.table};
}

}  // namespace

std::string Abbreviated(std::string_view sql, size_t max) {
  std::string s(sql.substr(0, max));
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (sql.size() > max) s += "...";
  return s;
}

schema::BinlogPosition JustBefore(schema::BinlogPosition position) {
  if (position.offset > 0) --position.offset;
  return position;
}

std::vector<std::pair<std::string, std::string>> RenamedColumns(
    const schema::DdlStatement& statement) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto* alter = std::get_if<schema::AlterTable>(&statement);
  if (alter == nullptr) return out;
  for (const schema::AlterSpec& spec : alter->specs) {
    std::string to;
    if (spec.kind == schema::AlterSpec::Kind::kRenameColumn) {
      to = spec.new_name;
    } else if (spec.kind == schema::AlterSpec::Kind::kChangeColumn) {
      to = spec.definition.name;
    } else {
      continue;
    }
    if (tables::SameColumnName(spec.column, to)) continue;
    bool chained = false;
    for (auto& [from, current] : out) {
      if (tables::SameColumnName(current, spec.column)) {
        current = to;
        chained = true;
      }
    }
    if (!chained) out.emplace_back(spec.column, to);
  }
  return out;
}

std::vector<Meet> Planner::TablesToMeet(const schema::TableChange& change,
                                        const schema::BinlogPosition& position) const {
  const tables::SourceTableName name = NameOf(change.table);
  const schema::BinlogPosition before = JustBefore(position);
  std::vector<Meet> meets;
  auto unmet = [&](const tables::SourceTableName& table, int& rule) {
    rule = view_.Match(table);
    return rule != config::TableMatcher::kNoRule && !view_.Streamed(table);
  };
  int rule = config::TableMatcher::kNoRule;
  if (view_.BeforeStart(name, position)) {
    // A table renamed onto a name copied later leaves its target behind (LeftBehind).
    if (change.kind == Kind::kRenamed && change.from) {
      const tables::SourceTableName from = NameOf(*change.from);
      if (!view_.BeforeStart(from, position) && unmet(from, rule))
        meets.push_back({from, rule, before, true, "RENAME TABLE"});
    }
    return meets;
  }
  switch (change.kind) {
    case Kind::kDropped:
      // Its target is dropped with it even when no row of it came in this session.
      if (unmet(name, rule) &&
          view_.config().tables[static_cast<size_t>(rule)].drop_table == config::DropTable::kDrop) {
        meets.push_back({name, rule, before, true, "DROP TABLE"});
      }
      return meets;
    case Kind::kCreated:
    case Kind::kRenamed:
      // Replaying from a checkpoint, a renamed table whose rows this session has not met yet: the
      // source no longer has it under that name.
      if (change.kind == Kind::kRenamed && change.from) {
        const tables::SourceTableName from = NameOf(*change.from);
        if (unmet(from, rule) && !view_.BeforeStart(from, position))
          meets.push_back({from, rule, before, false, ""});
      }
      return meets;
    default:
      // Not met yet: resolved with the columns before the statement, so that the change is
      // carried to its target like for any other table.
      if (unmet(name, rule)) meets.push_back({name, rule, before, false, ""});
      return meets;
  }
}

Decision Planner::Change(const schema::TableChange& change, const schema::DdlStatement& statement,
                         const schema::BinlogPosition& position, std::string_view sql) const {
  const tables::SourceTableName name = NameOf(change.table);
  Decision d;
  if (change.kind == Kind::kDropped) d.Add(EndAlias{name, position});
  if (change.kind == Kind::kRenamed && change.from) d.Add(EndAlias{NameOf(*change.from), position});
  if (view_.BeforeStart(name, position)) {
    // Its target holds the table as of its copy's end, after this statement.
    d.Add(Note{NoteLevel::kDebug,
               fmt::format("{} at {}: {} is copied as of a later position; its target is left as "
                           "it is",
                           Abbreviated(sql), position.ToString(), name.ToString())});
    if (change.kind == Kind::kRenamed && change.from)
      d.Append(LeftBehind(NameOf(*change.from), name, position));
    return d;
  }
  switch (change.kind) {
    case Kind::kDropped:
      // A target a copy holds is the table's of the name that took it over.
      if (view_.NameInCopy(name, position)) {
        d.Add(RetireTable{name});
      } else {
        d.Append(Dropped(name, position.ToString()));
      }
      return d;
    case Kind::kCreated:
    case Kind::kRenamed:
      d.Append(NewName(change, position));
      return d;
    default:
      break;
  }
  if (view_.Match(name) == config::TableMatcher::kNoRule) return d;
  const std::optional<StreamedFacts> table = view_.Streamed(name);
  if (!table || table->stopped || table->target.empty()) return d;
  if (view_.NameInCopy(name, position)) {
    d.Add(Note{NoteLevel::kDebug,
               fmt::format("{} at {}: the copy that replaced {}, the target of {}, holds it",
                           Abbreviated(sql), position.ToString(), table->target, name.ToString())});
    return d;
  }
  const std::string where = position.ToString();
  switch (change.kind) {
    case Kind::kAltered:
      d.Append(Altered(name, *table, change, statement, where, Abbreviated(sql)));
      break;
    case Kind::kTruncated:
      d.Append(Truncated(name, *table, where));
      break;
    case Kind::kRowsChanged:
      d.Add(StopTable{name,
                      fmt::format("{} at {} removed or moved rows without row events; the target "
                                  "no longer matches (copy the table again)",
                                  Abbreviated(sql), where),
                      true});
      break;
    default:
      break;
  }
  return d;
}

Decision Planner::Dropped(const tables::SourceTableName& name, const std::string& where) const {
  Decision d;
  d.Add(Announce{Announce::Kind::kDropped, name, {}, ""});
  const std::optional<StreamedFacts> table = view_.Streamed(name);
  if (!table) return d;
  if (table->stopped) {
    d.Add(EndStop{name, "dropped at " + where});
    return d;
  }
  d.Add(DrainTable{name});
  const std::optional<tables::SourceTableName> other =
      table->target.empty() ? std::nullopt : view_.OtherWriter(name, {});
  const bool drops_target =
      table->rule >= 0 && view_.config().tables[static_cast<size_t>(table->rule)].drop_table ==
                              config::DropTable::kDrop;
  if (other) {
    // gh-ost's swapped-out table, when its target could not be renamed with it: the target is
    // the live table's now.
    d.Add(Note{NoteLevel::kInfo,
               fmt::format("{} dropped at {}; its target table {} stays: {} writes into it",
                           name.ToString(), where, table->target, other->ToString())});
  } else if (!table->target.empty() && drops_target && table->applies_schema_changes) {
    d.Add(DropTarget{name, table->target, true, fmt::format("DROP TABLE at {}: ", where),
                     fmt::format("{} dropped at {}: dropped its target table {}", name.ToString(),
                                 where, table->target)});
  } else {
    d.Add(Note{NoteLevel::kInfo, fmt::format("{} dropped at {}; its target table keeps its rows",
                                             name.ToString(), where)});
  }
  d.Add(RetireTable{name});
  return d;
}

Decision Planner::Altered(const tables::SourceTableName& name, const StreamedFacts& table,
                          const schema::TableChange& change, const schema::DdlStatement& statement,
                          const std::string& where, const std::string& text) const {
  Decision d;
  if (!change.schema) {
    d.Add(StopTable{name, fmt::format("{} at {} leaves its columns unknown", text, where), true});
    return d;
  }
  if (table.known && SameColumns(table.known->columns, change.schema->columns)) {
    d.Add(SetColumns{name, *change.schema, false});  // keys or options only
    return d;
  }
  if (!table.applies_schema_changes) {
    const bool says_stop =
        table.rule >= 0 && view_.config().tables[static_cast<size_t>(table.rule)].schema_changes ==
                               config::SchemaChanges::kStop;
    d.Add(StopTable{
        name,
        fmt::format("ALTER TABLE at {} changes its columns ({}) and the rule says "
                    "schema_changes: {}",
                    where, text,
                    says_stop ? "stop" : "auto (the target table was not created by rowbridge)"),
        true});
    return d;
  }
  d.Add(DrainTable{name});
  std::optional<std::vector<binlog::ColumnDef>> before;
  if (table.known) before = table.known->columns;
  d.Add(AlterTarget{name, std::move(before), change.schema->columns, RenamedColumns(statement),
                    fmt::format("cannot apply {} at {} to {}: ", text, where, table.target)});
  d.Add(SetColumns{name, *change.schema, true});
  return d;
}

Decision Planner::Truncated(const tables::SourceTableName& name, const StreamedFacts& table,
                            const std::string& where) const {
  Decision d;
  if (!table.applies_schema_changes) {
    d.Add(StopTable{name,
                    fmt::format("TRUNCATE at {} removed its rows unseen and the rule does not "
                                "apply schema changes",
                                where),
                    true});
    return d;
  }
  d.Add(DrainTable{name});
  if (table.target_facts.mode != mapping::TableMode::kReplica) {
    d.Add(
        Note{NoteLevel::kInfo, fmt::format("{} truncated at {}; the changelog {} keeps its history",
                                           name.ToString(), where, table.target)});
    return d;
  }
  d.Add(TruncateTarget{name, where});
  return d;
}

Decision Planner::AfterChanges(const schema::DdlStatement& statement, std::string_view sql,
                               const schema::BinlogPosition& position,
                               const std::string& gtid) const {
  // Row-based logging writes CREATE TABLE ... SELECT as the resolved CREATE TABLE and row
  // events; the SELECT itself in the binlog means the rows it inserted are not there.
  const auto* create = std::get_if<schema::CreateTable>(&statement);
  if (create == nullptr || !create->as_select || create->temporary) return {};
  return UnloggedRows(sql, "CREATE TABLE ... SELECT",
                      {{create->table.database, create->table.table}}, position, gtid);
}

Decision Planner::Unfollowable(std::string_view sql, const schema::BinlogPosition& position,
                               std::string_view error,
                               const std::vector<tables::SourceTableName>& named) const {
  Decision d;
  for (const tables::SourceTableName& name : named) {
    if (view_.Match(name) == config::TableMatcher::kNoRule) continue;
    if (view_.BeforeStart(name, position)) {
      d.Add(Note{NoteLevel::kWarn,
                 fmt::format("{}: the schema history could not follow {} at {} ({}); the table's "
                             "copy starts later, its columns there are checked against its "
                             "TABLE_MAPs",
                             name.ToString(), Abbreviated(sql), position.ToString(), error)});
      continue;
    }
    d.Add(StopTable{
        name, fmt::format("cannot follow the schema change ({}): {}", Abbreviated(sql), error),
        true});
  }
  return d;
}

Decision Planner::Unnameable(std::string_view sql, const schema::BinlogPosition& position,
                             std::string_view error, std::string_view lexing) {
  Decision d;
  d.Add(
      FailRun{fmt::format("the schema history could not follow {} at {} ({}), and the tables it "
                          "changes cannot be named: {}",
                          Abbreviated(sql), position.ToString(), error, lexing)});
  return d;
}

Decision Planner::UnloggedRows(std::string_view sql, std::string_view verb,
                               const std::vector<tables::SourceTableName>& written,
                               const schema::BinlogPosition& position,
                               const std::string& gtid) const {
  Decision d;
  std::vector<tables::SourceTableName> replicated;
  for (const tables::SourceTableName& name : written) {
    if (view_.Match(name) == config::TableMatcher::kNoRule) continue;
    if (view_.BeforeStart(name, position)) {
      d.Add(Note{NoteLevel::kDebug,
                 fmt::format("{} at {} writes {}, whose copy starts later: it "
                             "is in the copy",
                             Abbreviated(sql, 120), position.ToString(), name.ToString())});
      continue;
    }
    replicated.push_back(name);
  }
  if (replicated.empty()) return d;
  const std::string where =
      gtid.empty() ? position.ToString() : fmt::format("{} (GTID {})", position.ToString(), gtid);
  std::string names;
  for (const tables::SourceTableName& name : replicated)
    names += (names.empty() ? "" : ", ") + name.ToString();
  const bool one = replicated.size() == 1;
  const std::string reason = fmt::format(
      "the source logged {} as a statement at {}: \"{}\" changed rows of {} that are not in "
      "the binlog as row events (binlog_format is STATEMENT or MIXED for that session), so {} no "
      "longer {} the source. Fix: set binlog_format=ROW on the source (SET GLOBAL "
      "binlog_format=ROW, and in every session or tool that sets it, e.g. pt-table-checksum "
      "--set-vars binlog_format=ROW), then copy {} again (docs/running.md, \"Stopped tables\")",
      verb, where, Abbreviated(sql, 120), names, one ? "its target" : "their targets",
      one ? "matches" : "match", one ? "the table" : "the tables");
  if (view_.config().source.on_statement_dml == config::StatementDml::kStopRun) {
    d.Add(FailRun{reason + " (source.on_statement_dml: stop_run)"});
    return d;
  }
  for (const tables::SourceTableName& name : replicated) d.Add(StopTable{name, reason, false});
  return d;
}

}  // namespace rowbridge::schema_changes
