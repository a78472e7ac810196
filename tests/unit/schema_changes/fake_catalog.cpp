#include "unit/schema_changes/fake_catalog.h"

#include <fmt/format.h>

#include <variant>

#include "common/error.h"
#include "config/loader.h"
#include "config/target_template.h"
#include "schema/catalog.h"
#include "schema/sql_lexer.h"
#include "schema_changes/planner.h"
#include "tables/replicated_table.h"
#include "tables/statement_tables.h"

namespace rowbridge::schema_changes {

namespace {

tables::SourceTableName NameOf(const std::string& label) {
  const size_t dot = label.find('.');
  return {label.substr(0, dot), label.substr(dot + 1)};
}

// Overloaded lambdas for std::visit.
template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

void FakeCatalog::Configure(const std::string& yaml) {
  // A top-level key starts a line.
  auto has_key = [&](const std::string& key) {
    return yaml.rfind(key + ":", 0) == 0 || yaml.find("\n" + key + ":") != std::string::npos;
  };
  std::string text = yaml;
  if (!has_key("source")) text = "source: {host: db, user: repl, server_id: 7}\n" + text;
  if (!has_key("target")) text = "target: {host: ch, database: shop}\n" + text;
  config::LoadOptions options;
  options.env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  config_ = config::ParseConfig(text, "decision test", options);
  matcher_.emplace(config_.tables);
}

void FakeCatalog::ApplyHistory(const std::string& sql, const std::string& database,
                               size_t statement) {
  schema::ParseOptions parse;
  parse.default_database = database;
  history_.ApplyDdl(sql, parse, {45}, PositionOf(statement));
}

void FakeCatalog::AddTarget(const std::string& label, bool changelog, bool created) {
  targets_[label] = Target{changelog, created};
}

void FakeCatalog::AddTable(const std::string& name, const std::string& target, bool stopped,
                           bool in_copy) {
  const tables::SourceTableName table = NameOf(name);
  Table& t = tables_[table];
  t.rule = Match(table);
  t.stopped = stopped;
  t.in_copy = in_copy;
  t.target = !target.empty() || t.rule < 0 ? target : TargetLabel(table, t.rule);
  if (const schema::SchemaVersion* v = history_.Latest({table.database, table.table});
      v != nullptr && v->state == schema::TableState::kKnown) {
    t.known = tables::SourceTableSchema{};
    t.known->name = table;
    t.known->columns = v->schema.columns;
    t.known->primary_key = v->schema.primary_key;
  }
}

void FakeCatalog::AddCopy(const std::string& name, const schema::BinlogPosition& until) {
  copies_[NameOf(name)] = until;
}

void FakeCatalog::AddRename(const std::string& from, const std::string& to,
                            const schema::BinlogPosition& at) {
  routes_.AddRename({from, to, at.file, at.offset});
}

void FakeCatalog::AddAlias(const std::string& table, const std::string& target,
                           const schema::BinlogPosition& at,
                           const std::optional<schema::BinlogPosition>& until) {
  state::TargetAlias alias{table, target, at.file, at.offset, "", 0};
  if (until) {
    alias.until_file = until->file;
    alias.until_position = until->offset;
  }
  routes_.AddAlias(alias);
}

int FakeCatalog::Match(const tables::SourceTableName& name) const {
  return matcher_->Match(name.database, name.table);
}

std::string FakeCatalog::TargetLabel(const tables::SourceTableName& name, int rule) const {
  const config::QualifiedName q =
      config::ExpandTarget(config_.tables[static_cast<size_t>(rule)].target,
                           config_.target.database, name.database, name.table);
  return q.database + "." + q.table;
}

bool FakeCatalog::TargetExists(const tables::SourceTableName& name, int rule) const {
  return targets_.count(TargetLabel(name, rule)) != 0;
}

bool FakeCatalog::Created(const std::string& label) const {
  auto it = targets_.find(label);
  return it != targets_.end() && it->second.created;
}

std::optional<StreamedFacts> FakeCatalog::Streamed(const tables::SourceTableName& name) const {
  auto it = tables_.find(name);
  if (it == tables_.end()) return std::nullopt;
  const Table& t = it->second;
  StreamedFacts facts;
  facts.rule = t.rule;
  facts.stopped = t.stopped;
  facts.target = t.target;
  facts.known = t.known;
  if (t.rule >= 0 && !t.target.empty()) {
    config::TableRule rule = config_.tables[static_cast<size_t>(t.rule)];
    auto target = targets_.find(t.target);
    const bool changelog = target != targets_.end() && target->second.changelog;
    rule.mode = changelog ? config::TableMode::kChangelog : config::TableMode::kReplica;
    facts.target_facts = {tables::PlanMode(rule.mode), rule.meta_columns.version,
                          tables::RemovalColumn(rule)};
    switch (config_.tables[static_cast<size_t>(t.rule)].schema_changes) {
      case config::SchemaChanges::kApply:
        facts.applies_schema_changes = true;
        break;
      case config::SchemaChanges::kStop:
        break;
      case config::SchemaChanges::kAuto:
        facts.applies_schema_changes = Created(t.target);
        break;
    }
  }
  return facts;
}

std::optional<tables::SourceTableName> FakeCatalog::OtherWriter(
    const tables::SourceTableName& writer, const std::set<tables::SourceTableName>& except) const {
  auto it = tables_.find(writer);
  if (it == tables_.end() || it->second.target.empty()) return std::nullopt;
  for (const auto& [name, table] : tables_) {
    if (name == writer || except.count(name) != 0) continue;
    if (table.target == it->second.target) return name;
  }
  return std::nullopt;
}

bool FakeCatalog::BeforeStart(const tables::SourceTableName& name,
                              const schema::BinlogPosition& position) const {
  auto it = copies_.find(name);
  return it != copies_.end() && position < it->second;
}

bool FakeCatalog::NameInCopy(const tables::SourceTableName& name,
                             const schema::BinlogPosition& position) const {
  if (BeforeStart(name, position)) return true;
  auto it = tables_.find(name);
  return it != tables_.end() && it->second.in_copy;
}

void FakeCatalog::MeetTable(const tables::SourceTableName& name, int rule,
                            const schema::BinlogPosition& at, const std::string& follow_target) {
  Table t;
  t.rule = rule;
  if (const state::TargetAlias* alias = routes_.AliasAt(name.ToString(), at);
      follow_target.empty() && alias != nullptr) {
    t.target = alias->target;
  } else {
    t.target = follow_target.empty() ? TargetLabel(name, rule) : follow_target;
  }
  if (targets_.count(t.target) == 0) {
    if (config_.tables[static_cast<size_t>(rule)].create_table) {
      targets_[t.target] = Target{
          config_.tables[static_cast<size_t>(rule)].mode == config::TableMode::kChangelog, true};
    } else {
      t.stopped = true;
    }
  }
  if (const schema::SchemaVersion* v = history_.SchemaAt({name.database, name.table}, at);
      v != nullptr && v->state == schema::TableState::kKnown) {
    t.known = tables::SourceTableSchema{};
    t.known->name = name;
    t.known->columns = v->schema.columns;
    t.known->primary_key = v->schema.primary_key;
  }
  tables_[name] = std::move(t);
}

void FakeCatalog::CarryOut(const Step& step) {
  std::visit(
      Overloaded{
          [&](const StopTable& s) {
            Table& t = tables_[s.table];
            if (t.rule < 0) t.rule = Match(s.table);
            t.stopped = true;
          },
          [&](const SetColumns& s) {
            auto it = tables_.find(s.table);
            if (it == tables_.end()) return;
            it->second.known = tables::SourceTableSchema{};
            it->second.known->name = s.table;
            it->second.known->columns = s.schema.columns;
            it->second.known->primary_key = s.schema.primary_key;
          },
          [&](const DropTarget& s) { targets_.erase(s.label); },
          [&](const RetireTable& s) { tables_.erase(s.table); },
          [&](const EndStop& s) { tables_.erase(s.table); },
          [&](const EndAlias& s) { routes_.EndAliases(s.table.ToString(), s.at); },
          [&](const RenameTarget& s) {
            auto it = targets_.find(s.rename.from);
            if (it == targets_.end()) return;
            targets_[s.rename.to] = it->second;
            targets_.erase(s.rename.from);
            for (auto& [name, table] : tables_)
              if (table.target == s.rename.from) table.target = s.rename.to;
            routes_.AddRename(s.rename);
          },
          [&](const ReplicateUnderName& s) { MeetTable(s.name, s.rule, s.at, s.follow_target); },
          [&](const RecordAlias& s) {
            auto it = tables_.find(s.table);
            if (it != tables_.end() && it->second.target == s.alias.target)
              routes_.AddAlias(s.alias);
          },
          [&](const auto&) {},
      },
      step);
}

bool FakeCatalog::CarryOut(const Decision& decision) {
  for (const Step& step : decision.steps) {
    CarryOut(step);
    if (std::holds_alternative<FailRun>(step)) return false;
  }
  return true;
}

std::string FakeCatalog::Decide(const std::string& sql, const std::string& database,
                                size_t statement) {
  const schema::BinlogPosition position = PositionOf(statement);
  schema::ParseOptions parse;
  parse.default_database = database;
  const Planner planner(*this);
  schema::DdlOutcome outcome;
  std::string out;
  try {
    outcome = history_.ApplyDdl(sql, parse, {45}, position);
  } catch (const Error& e) {
    const tables::StatementTables named = tables::ClassifyStatement(sql, database, parse.lex());
    const Decision d = planner.Unfollowable(sql, position, e.what(), named.tables);
    CarryOut(d);
    return "unfollowable\n" + schema_changes::Describe(d);
  }
  if (const auto* none = std::get_if<schema::NoTableChange>(&outcome.statement)) {
    if (!none->is_dml) return "no change\n";
    const tables::StatementTables written = tables::ClassifyStatement(sql, database, parse.lex());
    const Decision d = planner.UnloggedRows(sql, written.verb, written.tables, position, "");
    CarryOut(d);
    return "rows without row events\n" + schema_changes::Describe(d);
  }
  if (outcome.replayed) return "replayed\n";
  for (const schema::TableChange& change : outcome.changes) {
    out +=
        fmt::format("{} {}.{}{}\n", schema::TableChangeKindName(change.kind), change.table.database,
                    change.table.table,
                    change.from ? " from " + change.from->database + "." + change.from->table : "");
    const std::vector<schema_changes::Meet> meets = planner.TablesToMeet(change, position);
    for (const schema_changes::Meet& m : meets) {
      if (m.only_existing_target && !TargetExists(m.table, m.rule)) continue;
      MeetTable(m.table, m.rule, m.at, "");
    }
    const Decision d = planner.Change(change, outcome.statement, position, sql);
    out += schema_changes::Describe(meets) + schema_changes::Describe(d);
    if (meets.empty() && d.empty()) out += "nothing to do\n";
    CarryOut(d);
  }
  const Decision after = planner.AfterChanges(outcome.statement, sql, position, "");
  out += schema_changes::Describe(after);
  CarryOut(after);
  return out;
}

std::string FakeCatalog::Describe() const {
  std::string out;
  for (const auto& [name, t] : tables_) {
    out += fmt::format("table {} rule={} target={}{}{}\n", name.ToString(), t.rule,
                       t.target.empty() ? "none" : t.target, t.stopped ? " stopped" : "",
                       t.known ? "" : " columns-unknown");
  }
  for (const auto& [label, t] : targets_) {
    out += fmt::format("target {}{}{}\n", label, t.changelog ? " changelog" : "",
                       t.created ? "" : " not-created");
  }
  for (const state::TargetRename& r : routes_.renames())
    out += fmt::format("rename {} -> {} at {}:{}\n", r.from, r.to, r.file, r.position);
  for (const state::TargetAlias& a : routes_.aliases()) {
    out += fmt::format(
        "alias {} -> {} at {}:{}{}\n", a.table, a.target, a.file, a.position,
        a.until_file.empty() ? "" : fmt::format(" until {}:{}", a.until_file, a.until_position));
  }
  return out;
}

}  // namespace rowbridge::schema_changes
