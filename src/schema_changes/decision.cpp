#include "schema_changes/decision.h"

#include <fmt/format.h>

namespace rowbridge::schema_changes {

namespace {

std::string ColumnNames(const std::vector<binlog::ColumnDef>& columns) {
  std::string out = "(";
  for (const binlog::ColumnDef& c : columns) out += (out.size() > 1 ? ", " : "") + c.name;
  return out + ")";
}

const char* LevelName(NoteLevel level) {
  switch (level) {
    case NoteLevel::kDebug:
      return "debug";
    case NoteLevel::kInfo:
      return "info";
    case NoteLevel::kWarn:
      return "warn";
  }
  return "?";
}

struct Describer {
  std::string indent;

  std::string operator()(const Note& s) const {
    return fmt::format("note {}: {}", LevelName(s.level), s.text);
  }
  std::string operator()(const FailRun& s) const { return "fail the run: " + s.message; }
  std::string operator()(const StopTable& s) const {
    return fmt::format("stop {}{}: {}", s.table.ToString(), s.schema_error ? " (schema)" : "",
                       s.reason);
  }
  std::string operator()(const DrainTable& s) const {
    return "write the buffered rows of " + s.table.ToString();
  }
  std::string operator()(const AlterTarget& s) const {
    std::string renames;
    for (const auto& [from, to] : s.renames) renames += fmt::format(" {}->{}", from, to);
    return fmt::format("alter the target of {}: before {}, after {}{}{}", s.table.ToString(),
                       s.before ? ColumnNames(*s.before) : "unknown", ColumnNames(s.after),
                       renames.empty() ? "" : ", renames", renames);
  }
  std::string operator()(const SetColumns& s) const {
    return fmt::format("columns of {} become {}{}", s.table.ToString(),
                       ColumnNames(s.schema.columns), s.new_plan ? ", new plan" : "");
  }
  std::string operator()(const TruncateTarget& s) const {
    return "truncate the target of " + s.table.ToString();
  }
  std::string operator()(const DropTarget& s) const {
    return fmt::format("drop target {} of {} (on error: {})", s.label, s.table.ToString(),
                       s.stop_on_error ? "stop" : "keep it");
  }
  std::string operator()(const RetireTable& s) const { return "retire " + s.table.ToString(); }
  std::string operator()(const EndStop& s) const {
    return fmt::format("end the stop of {}: {}", s.table.ToString(), s.what);
  }
  std::string operator()(const Announce& s) const {
    switch (s.kind) {
      case Announce::Kind::kDropped:
        return "announce dropped " + s.table.ToString();
      case Announce::Kind::kRenamed:
        return fmt::format("announce renamed {} -> {}", s.table.ToString(), s.to.ToString());
      case Announce::Kind::kReplicated:
        return "announce replicated " + s.table.ToString();
      case Announce::Kind::kNeedsCopy:
        return fmt::format("announce needs a copy {}: {}", s.table.ToString(), s.why);
    }
    return "?";
  }
  std::string operator()(const EndAlias& s) const {
    return fmt::format("end the alias of {} at {}", s.table.ToString(), s.at.ToString());
  }
  std::string operator()(const RenameTarget& s) const {
    std::string out = fmt::format("rename target {} -> {} at {}:{} (for {})", s.rename.from,
                                  s.rename.to, s.rename.file, s.rename.position, s.to.ToString());
    if (s.if_refused) {
      out += "\n" + indent + "  if refused:";
      for (const Step& step : s.if_refused->steps)
        out += "\n" + indent + "    " + std::visit(Describer{indent + "    "}, step);
    }
    return out;
  }
  std::string operator()(const ReplicateUnderName& s) const {
    return fmt::format("replicate {} (rule {}) at {}{}", s.name.ToString(), s.rule, s.at.ToString(),
                       s.follow_target.empty() ? "" : ", writing into " + s.follow_target);
  }
  std::string operator()(const RecordAlias& s) const {
    return fmt::format("record the alias {} -> {} from {}:{}", s.alias.table, s.alias.target,
                       s.alias.file, s.alias.position);
  }
  std::string operator()(const ReconcileNewName& s) const {
    return fmt::format("reconcile the target of {}{}", s.name.ToString(),
                       s.before ? ", dropping what " + ColumnNames(*s.before) + " had" : "");
  }
};

}  // namespace

void Decision::Append(Decision other) {
  for (Step& step : other.steps) steps.push_back(std::move(step));
}

std::string Describe(const Decision& decision) {
  std::string out;
  for (const Step& step : decision.steps) out += std::visit(Describer{}, step) + "\n";
  return out;
}

std::string Describe(const std::vector<Meet>& meets) {
  std::string out;
  for (const Meet& m : meets) {
    out += fmt::format("meet {} (rule {}) at {}{}\n", m.table.ToString(), m.rule, m.at.ToString(),
                       m.only_existing_target ? ", if its target exists (" + m.why + ")" : "");
  }
  return out;
}

}  // namespace rowbridge::schema_changes
