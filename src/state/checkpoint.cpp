#include "state/checkpoint.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace rowbridge::state {

const char* GtidFlavorName(GtidFlavor flavor) {
  switch (flavor) {
    case GtidFlavor::kNone:
      return "none";
    case GtidFlavor::kMysql:
      return "mysql";
    case GtidFlavor::kMariadb:
      return "mariadb";
  }
  return "?";
}

std::string Checkpoint::Describe() const {
  std::string s = fmt::format("{}:{}", file, position);
  if (gtid_flavor != GtidFlavor::kNone && !gtid.empty()) s += fmt::format(" (gtid {})", gtid);
  return s;
}

const char* TableCopyKindName(TableCopy::Kind kind) {
  switch (kind) {
    case TableCopy::Kind::kMatchedLater:
      return "copy of tables matched later";
    case TableCopy::Kind::kResnapshot:
      return "resnapshot";
    case TableCopy::Kind::kResume:
      return "resume";
  }
  return "copy";
}

const StoppedTable* Checkpoint::FindStopped(std::string_view label) const {
  for (const StoppedTable& s : stopped_tables) {
    if (label.size() == s.database.size() + 1 + s.table.size() && label.starts_with(s.database) &&
        label[s.database.size()] == '.' && label.ends_with(s.table)) {
      return &s;
    }
  }
  return nullptr;
}

const PendingCommand* Checkpoint::FindPending(std::string_view label) const {
  for (const PendingCommand& c : pending_commands) {
    if (c.table == label) return &c;
  }
  return nullptr;
}

const TableRepair* Checkpoint::FindRepair(std::string_view label) const {
  for (const TableRepair& r : table_repairs) {
    if (r.table == label) return &r;
  }
  return nullptr;
}

std::string Checkpoint::ToJson() const {
  nlohmann::ordered_json j;
  j["file"] = file;
  j["position"] = position;
  j["gtid_flavor"] = GtidFlavorName(gtid_flavor);
  j["gtid"] = gtid;
  j["next_version"] = next_version;
  auto stopped = nlohmann::ordered_json::array();
  for (const StoppedTable& t : stopped_tables) {
    stopped.push_back({{"database", t.database},
                       {"table", t.table},
                       {"position", t.position},
                       {"reason", t.reason}});
    if (t.paused) stopped.back()["paused"] = true;
  }
  j["stopped_tables"] = std::move(stopped);
  if (!created_targets.empty()) j["created_targets"] = created_targets;
  if (!targets_to_drop.empty()) j["targets_to_drop"] = targets_to_drop;
  if (replicated_tables) j["replicated_tables"] = *replicated_tables;
  if (!table_starts.empty()) {
    auto starts = nlohmann::ordered_json::array();
    for (const TableStart& t : table_starts) {
      nlohmann::ordered_json start = {
          {"table", t.table}, {"file", t.file}, {"position", t.position}};
      if (!t.fresh_target.empty()) start["fresh_target"] = t.fresh_target;
      if (t.counted) start["counted"] = true;
      starts.push_back(std::move(start));
    }
    j["table_starts"] = std::move(starts);
  }
  if (!target_renames.empty()) {
    auto renames = nlohmann::ordered_json::array();
    for (const TargetRename& r : target_renames) {
      renames.push_back(
          {{"from", r.from}, {"to", r.to}, {"file", r.file}, {"position", r.position}});
      if (r.from_created_again) renames.back()["from_created_again"] = true;
    }
    j["target_renames"] = std::move(renames);
  }
  if (!target_aliases.empty()) {
    auto aliases = nlohmann::ordered_json::array();
    for (const TargetAlias& a : target_aliases) {
      nlohmann::ordered_json alias = {
          {"table", a.table}, {"target", a.target}, {"file", a.file}, {"position", a.position}};
      if (!a.until_file.empty()) {
        alias["until_file"] = a.until_file;
        alias["until_position"] = a.until_position;
      }
      aliases.push_back(std::move(alias));
    }
    j["target_aliases"] = std::move(aliases);
  }
  if (!pending_commands.empty()) {
    auto commands = nlohmann::ordered_json::array();
    for (const PendingCommand& c : pending_commands) {
      commands.push_back(
          {{"table", c.table}, {"action", c.action}, {"requested_at", c.requested_at}});
    }
    j["pending_commands"] = std::move(commands);
  }
  if (!table_repairs.empty()) {
    auto repairs = nlohmann::ordered_json::array();
    for (const TableRepair& r : table_repairs) {
      repairs.push_back(
          {{"table", r.table}, {"version_base", r.version_base}, {"requested_at", r.requested_at}});
    }
    j["table_repairs"] = std::move(repairs);
  }
  if (table_copy) {
    j["table_copy"] = {{"version_base", table_copy->version_base}, {"tables", table_copy->tables}};
    if (!table_copy->fresh_targets.empty())
      j["table_copy"]["fresh_targets"] = table_copy->fresh_targets;
    if (!table_copy->resume_from.empty()) j["table_copy"]["resume_from"] = table_copy->resume_from;
    if (table_copy->matched_later) j["table_copy"]["matched_later"] = true;
  }
  if (!schema_history.empty()) j["schema_history"] = nlohmann::ordered_json::parse(schema_history);
  return j.dump();
}

Checkpoint Checkpoint::FromJson(std::string_view text, std::string_view origin) {
  Checkpoint c;
  try {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
    c.file = j.at("file").get<std::string>();
    c.position = j.at("position").get<uint64_t>();
    const std::string flavor = j.at("gtid_flavor").get<std::string>();
    if (flavor == "none") {
      c.gtid_flavor = GtidFlavor::kNone;
    } else if (flavor == "mysql") {
      c.gtid_flavor = GtidFlavor::kMysql;
    } else if (flavor == "mariadb") {
      c.gtid_flavor = GtidFlavor::kMariadb;
    } else {
      Fail(ErrorCode::kCorruption, "{}: unknown gtid_flavor \"{}\"", origin, flavor);
    }
    c.gtid = j.at("gtid").get<std::string>();
    c.next_version = j.at("next_version").get<uint64_t>();
    if (j.contains("stopped_tables")) {
      for (const auto& t : j.at("stopped_tables")) {
        c.stopped_tables.push_back({t.at("database").get<std::string>(),
                                    t.at("table").get<std::string>(),
                                    t.at("position").get<std::string>(),
                                    t.at("reason").get<std::string>(), t.value("paused", false)});
      }
    }
    if (j.contains("created_targets")) {
      c.created_targets = j.at("created_targets").get<std::vector<std::string>>();
    }
    if (j.contains("targets_to_drop")) {
      c.targets_to_drop = j.at("targets_to_drop").get<std::vector<std::string>>();
    }
    if (j.contains("replicated_tables")) {
      c.replicated_tables = j.at("replicated_tables").get<std::vector<std::string>>();
    }
    if (j.contains("table_starts")) {
      for (const auto& t : j.at("table_starts")) {
        c.table_starts.push_back({t.at("table").get<std::string>(), t.at("file").get<std::string>(),
                                  t.at("position").get<uint64_t>(),
                                  t.value("fresh_target", std::string()),
                                  t.value("counted", false)});
      }
    }
    if (j.contains("target_renames")) {
      for (const auto& r : j.at("target_renames")) {
        c.target_renames.push_back({r.at("from").get<std::string>(), r.at("to").get<std::string>(),
                                    r.at("file").get<std::string>(),
                                    r.at("position").get<uint64_t>(),
                                    r.value("from_created_again", false)});
      }
    }
    if (j.contains("target_aliases")) {
      for (const auto& a : j.at("target_aliases")) {
        c.target_aliases.push_back(
            {a.at("table").get<std::string>(), a.at("target").get<std::string>(),
             a.at("file").get<std::string>(), a.at("position").get<uint64_t>(),
             a.value("until_file", std::string()), a.value("until_position", uint64_t{0})});
      }
    }
    if (j.contains("pending_commands")) {
      for (const auto& p : j.at("pending_commands")) {
        c.pending_commands.push_back({p.at("table").get<std::string>(),
                                      p.at("action").get<std::string>(),
                                      p.value("requested_at", std::string())});
      }
    }
    if (j.contains("table_repairs")) {
      for (const auto& r : j.at("table_repairs")) {
        c.table_repairs.push_back({r.at("table").get<std::string>(),
                                   r.at("version_base").get<uint64_t>(),
                                   r.value("requested_at", std::string())});
      }
    }
    if (j.contains("table_copy")) {
      const auto& t = j.at("table_copy");
      c.table_copy = TableCopy{
          t.at("version_base").get<uint64_t>(), t.at("tables").get<std::vector<std::string>>(),
          t.value("fresh_targets", std::vector<std::string>()),
          t.value("resume_from", std::vector<std::string>()), t.value("matched_later", false)};
      if (!c.table_copy->fresh_targets.empty() &&
          c.table_copy->fresh_targets.size() != c.table_copy->tables.size()) {
        Fail(ErrorCode::kCorruption, "{}: table_copy has {} tables but {} fresh targets", origin,
             c.table_copy->tables.size(), c.table_copy->fresh_targets.size());
      }
      if (!c.table_copy->resume_from.empty() &&
          c.table_copy->resume_from.size() != c.table_copy->tables.size()) {
        Fail(ErrorCode::kCorruption, "{}: table_copy has {} tables but {} resume positions", origin,
             c.table_copy->tables.size(), c.table_copy->resume_from.size());
      }
    }
    if (j.contains("schema_history")) c.schema_history = j.at("schema_history").dump();
  } catch (const nlohmann::json::exception& e) {
    Fail(ErrorCode::kCorruption, "{}: not a rowbridge checkpoint ({}): {}", origin, e.what(),
         text.substr(0, 200));
  }
  if (c.file.empty() || c.next_version == 0) {
    Fail(ErrorCode::kCorruption, "{}: checkpoint without a binlog file or with version 0: {}",
         origin, text.substr(0, 200));
  }
  return c;
}

void RequireVersionRoom(uint64_t next_version, std::string_view whose, std::string_view fix) {
  if (next_version < kVersionLimit) return;
  Fail(ErrorCode::kCorruption,
       "the next version of {} is {}, at or beyond 2^62 = {}: no job gets there by counting "
       "changes, "
       "and versions would soon overflow an Int64 version column and wrap around 2^64; {}",
       whose, next_version, kVersionLimit, fix);
}

}  // namespace rowbridge::state
