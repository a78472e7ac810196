// The planner's decisions for a table that comes under a name (CREATE TABLE, RENAME TABLE), and
// for the target a renamed table leaves behind.
#include <fmt/format.h>

#include <algorithm>

#include "config/table_matcher.h"
#include "schema_changes/planner.h"
#include "tables/replicated_table.h"

namespace rowbridge::schema_changes {

namespace {

using Kind = schema::TableChange::Kind;

}  // namespace

std::string Planner::MoveRefusal(const std::string& label, const TargetFacts& target,
                                 const tables::SourceTableName& from,
                                 const tables::SourceTableName& to, int rule) const {
  const config::TableRule& new_rule = view_.config().tables[static_cast<size_t>(rule)];
  const std::string rules_target = view_.TargetLabel(to, rule);
  if (!view_.Created(label)) return "rowbridge did not create it";
  if (!view_.config().target.cluster.empty()) return "it is a clustered table";
  if (new_rule.schema_changes == config::SchemaChanges::kStop || !new_rule.create_table) {
    return fmt::format("the rule for {} says {}", to.ToString(),
                       new_rule.create_table ? "schema_changes: stop" : "create_table: false");
  }
  if (target.mode != tables::PlanMode(new_rule.mode) ||
      target.version_column != new_rule.meta_columns.version ||
      target.removal_column != tables::RemovalColumn(new_rule)) {
    return fmt::format("the rule for {} wants another mode or meta columns", to.ToString());
  }
  if (std::optional<tables::SourceTableName> other = view_.OtherWriter(from, {to}))
    return fmt::format("{} writes into it too", other->ToString());
  if (view_.TargetExists(to, rule)) return fmt::format("{} exists already", rules_target);
  return "";
}

Decision Planner::NewName(const schema::TableChange& change,
                          const schema::BinlogPosition& position) const {
  NewNameFacts f;
  f.name = {change.table.database, change.table.table};
  f.created = change.kind == Kind::kCreated;
  f.position = position;
  if (change.kind == Kind::kRenamed && change.from)
    f.from = tables::SourceTableName{change.from->database, change.from->table};
  // The old name's target holds the table copied as of a later position (a resnapshot handed
  // over after this statement, which the stream replays): it stays with that name, and the table
  // leaving the name has none of its rows there, so it is copied again under its new name.
  f.from_copied_later = f.from && view_.NameInCopy(*f.from, position);
  std::string followed;  // the target the renamed table wrote into
  Decision d = LeaveOldName(f, followed);
  f.from_replicated = !followed.empty();
  f.rule = view_.Match(f.name);
  if (f.rule == config::TableMatcher::kNoRule) return d;
  // The table that had this name just before (gh-ost's RENAME t TO _t_del, _t_gho TO t): columns
  // it had and the new one lacks are dropped from the target. Not for a CREATE TABLE: no table
  // had the name just before it. A history that says otherwise was seeded at the start with a
  // later table's columns (a table created in the replayed part of the binlog), and dropping the
  // columns the CREATE lacks would take the values of the rows the replay skips as present.
  const schema::SchemaVersion* previous =
      view_.history().SchemaAt(change.table, JustBefore(position));
  if (previous != nullptr && previous->state == schema::TableState::kKnown && !f.created)
    f.previous_columns = previous->schema.columns;
  // (A name that had a table just before is a swap, e.g. gh-ost's: its target goes on.)
  f.name_was_taken = previous != nullptr && previous->state != schema::TableState::kAbsent;
  d.Add(RetireTable{f.name});
  f.rules_target = view_.TargetLabel(f.name, f.rule);
  if (!followed.empty() && followed != f.rules_target) {
    // Replayed: the target renames recorded later move the rules' target of the new name on to
    // the followed target (gh-ost's next swap renamed it to `_t_del`), so the followed target is
    // where the new name's rows go until then and must stay there. Renamed into the new name
    // again, it was taken out of the later swap, and the shadow's target that swap renames in was
    // left in ClickHouse for good (unpaced DDL workload, seed 547 on MariaDB 11.8).
    const std::vector<std::string> later = view_.routes().RenamesAfter(f.rules_target, position);
    if (std::find(later.begin(), later.end(), followed) != later.end()) followed.clear();
  }
  if (followed.empty() || followed == f.rules_target) {
    d.Append(WriteUnderNewName(f, {followed, "", ""}));
    return d;
  }
  // The renamed table's rows stay together: its target takes the new name's target name where
  // rowbridge may rename it.
  const std::string refusal = MoveRefusal(followed, f.followed_facts, *f.from, f.name, f.rule);
  if (!refusal.empty()) {
    d.Add(Note{NoteLevel::kWarn,
               fmt::format("{} is the new name of a table replicated into {}, but the rules' "
                           "target for it is {}; {} is not renamed ({})",
                           f.name.ToString(), followed, f.rules_target, followed, refusal)});
    d.Append(KeepOldTarget(f, followed));
    return d;
  }
  d.Add(RenameTarget{state::TargetRename{followed, f.rules_target, position.file, position.offset},
                     f.name, std::make_shared<const Decision>(KeepOldTarget(f, followed))});
  d.Append(WriteUnderNewName(f, {"", "", ""}));
  return d;
}

Decision Planner::LeaveOldName(NewNameFacts& f, std::string& followed) const {
  Decision d;
  if (!f.from) return d;
  if (f.from_copied_later) {
    // Its rows until here are in the copy, and nothing is buffered for it. Kept, it went on
    // "writing" into the target it was resolved to, and a later DROP of that target's table
    // under drop_table: drop kept the target for it (unpaced DDL workload, seed 631 on MariaDB
    // 11.8).
    d.Add(RetireTable{*f.from});
    return d;
  }
  const std::optional<StreamedFacts> old = view_.Streamed(*f.from);
  if (!old) return d;
  const std::string where = f.position.ToString();
  if (old->stopped) {
    // Its resnapshot waiting under the old name would fail for good and be begun again at every
    // restart: it follows the table.
    d.Add(Announce{Announce::Kind::kRenamed, *f.from, f.name, ""});
    d.Add(EndStop{*f.from, fmt::format("renamed to {} at {}", f.name.ToString(), where)});
    return d;
  }
  d.Add(DrainTable{*f.from});
  followed = old->target;
  f.followed_facts = old->target_facts;
  d.Add(Note{NoteLevel::kInfo,
             fmt::format("{} renamed to {} at {}; its rows go where the rules "
                         "route {}",
                         f.from->ToString(), f.name.ToString(), where, f.name.ToString())});
  d.Add(RetireTable{*f.from});
  d.Add(Announce{Announce::Kind::kRenamed, *f.from, f.name, ""});
  return d;
}

Decision Planner::KeepOldTarget(const NewNameFacts& f, const std::string& label) const {
  // Not renamed with it: the table goes on writing into its old target, for good (an alias),
  // unless the rules' target for the new name exists already (gh-ost's swap: the shadow becomes
  // the table the target was made for) or takes another mode: then it writes into the rules'
  // target, which lacks its earlier rows unless the name was a swap's.
  NewNameTarget target{label, "", ""};
  if (view_.TargetExists(f.name, f.rule)) {
    target.split_why = "exists already";
  } else if (f.followed_facts.mode !=
             tables::PlanMode(view_.config().tables[static_cast<size_t>(f.rule)].mode)) {
    target.split_why = "takes another mode";
  }
  if (!target.split_why.empty()) {
    if (!f.name_was_taken) target.split_from = label;
    target.followed.clear();
  }
  return WriteUnderNewName(f, target);
}

Decision Planner::WriteUnderNewName(const NewNameFacts& f, const NewNameTarget& target) const {
  const std::string where = f.position.ToString();
  Decision d;
  d.Add(ReplicateUnderName{f.name, f.rule, f.position, target.followed});
  if (!target.followed.empty() && target.followed != f.rules_target) {
    d.Add(RecordAlias{f.name, state::TargetAlias{f.name.ToString(), target.followed,
                                                 f.position.file, f.position.offset, "", 0}});
  }
  if (f.created || f.from_replicated) {
    d.Add(Announce{Announce::Kind::kReplicated, f.name, {}, ""});
    if (!target.split_from.empty()) {
      d.Add(Announce{Announce::Kind::kNeedsCopy,
                     f.name,
                     {},
                     fmt::format("it was renamed at {} from {}, whose rows are in {}, and its "
                                 "rules' target {} {}",
                                 where, f.from->ToString(), target.split_from, f.rules_target,
                                 target.split_why)});
    }
  } else if (f.from) {
    // The rows the table had under its unreplicated old name never reached the target: a table
    // renamed into a matched name, or an online schema change's shadow no rule matched swapped
    // in (the target holds the old table's rows, without what the shadow added).
    d.Add(Announce{Announce::Kind::kReplicated, f.name, {}, ""});
    d.Add(Announce{
        Announce::Kind::kNeedsCopy,
        f.name,
        {},
        f.from_copied_later
            ? fmt::format("it was renamed at {} from {}, whose target holds {} as copied at a "
                          "later position, so its rows are in no target",
                          where, f.from->ToString(), f.from->ToString())
            : fmt::format("it was renamed at {} from {}, which no rule replicated, so its "
                          "target lacks the rows (or the values) {} had then",
                          where, f.from->ToString(), f.from->ToString())});
  }
  if (!target.followed.empty()) {
    d.Add(Note{NoteLevel::kInfo, fmt::format("{} now writes into {} (the target of its old name)",
                                             f.name.ToString(), target.followed)});
  }
  d.Add(ReconcileNewName{f.name, f.previous_columns});
  return d;
}

Decision Planner::LeftBehind(const tables::SourceTableName& from,
                             const tables::SourceTableName& name,
                             const schema::BinlogPosition& position) const {
  // RENAME of `from` onto `name`, whose target holds the table as copied at a later position (a
  // resnapshot the stream replays up to): the rows of `from`'s target are in that copy, under
  // `name`. The target rowbridge made for `from` (a replica: a changelog's history is in no
  // copy) is dropped, or it would stay behind for good, and a later table of `from`'s name would
  // write into its stale rows.
  Decision d;
  if (view_.BeforeStart(from, position)) return d;  // its target, too, holds a later copy
  const std::optional<StreamedFacts> table = view_.Streamed(from);
  if (!table || table->stopped) return d;
  d.Add(DrainTable{from});
  const std::string& label = table->target;
  const int rule = view_.Match(name);
  const bool own =
      !label.empty() && table->target_facts.mode == mapping::TableMode::kReplica &&
      !view_.OtherWriter(from, {}) && view_.Created(label) &&
      (rule == config::TableMatcher::kNoRule || label != view_.TargetLabel(name, rule));
  if (own) {
    d.Add(DropTarget{
        from, label, false,
        fmt::format("{} renamed to {} at {}: its left-behind target {} is kept: ", from.ToString(),
                    name.ToString(), position.ToString(), label),
        fmt::format("{} renamed to {} at {}, whose target holds it as copied at a later position: "
                    "dropped {}, the target rowbridge made for {}, whose rows that copy holds",
                    from.ToString(), name.ToString(), position.ToString(), label,
                    from.ToString())});
  }
  d.Add(RetireTable{from});
  return d;
}

}  // namespace rowbridge::schema_changes
