#include "pipeline/checkpoint_tracker.h"

#include <fmt/format.h>

#include <algorithm>

#include "schema/schema_history.h"

namespace rowbridge::pipeline {

std::string TransactionGtid::Describe() const {
  switch (flavor) {
    case state::GtidFlavor::kMysql:
      return tag.empty() ? fmt::format("{}:{}", uuid.ToString(), gno)
                         : fmt::format("{}:{}:{}", uuid.ToString(), tag, gno);
    case state::GtidFlavor::kMariadb:
      return mariadb.ToString();
    case state::GtidFlavor::kNone:
      break;
  }
  return {};
}

CheckpointTracker::CheckpointTracker(const state::Checkpoint& start) : checkpoint_(start) {
  files_.push_back(start.file);
  gtids_whole_ = start.gtid_flavor != state::GtidFlavor::kNone;
  if (start.gtid_flavor == state::GtidFlavor::kMysql) {
    mysql_gtids_ = mysql::MysqlGtidSet::Parse(start.gtid);
  } else if (start.gtid_flavor == state::GtidFlavor::kMariadb) {
    mariadb_gtids_ = mysql::MariadbGtidPosition::Parse(start.gtid);
  }
}

void CheckpointTracker::SetFile(std::string_view file) {
  if (files_.back() != file) files_.emplace_back(file);
}

void CheckpointTracker::AddBoundary(uint64_t position, uint64_t next_version,
                                    const TransactionGtid& gtid) {
  boundaries_.push_back({static_cast<uint32_t>(files_.size() - 1), position, next_version, gtid,
                         stops_added_, schemas_added_, file_states_added_});
}

void CheckpointTracker::SetFileGtidState(state::GtidFlavor flavor, std::string state) {
  file_states_.push_back({flavor, std::move(state)});
  ++file_states_added_;
}

void CheckpointTracker::AddStop(state::StoppedTable stop) {
  stops_.push_back(std::move(stop));
  ++stops_added_;
}

void CheckpointTracker::AddSchemaHistory(std::string json) {
  schemas_.push_back(std::move(json));
  ++schemas_added_;
}

void CheckpointTracker::AddCreatedTarget(const std::string& label) {
  auto& created = checkpoint_.created_targets;
  auto it = std::lower_bound(created.begin(), created.end(), label);
  if (it == created.end() || *it != label) {
    created.insert(it, label);
    created_targets_changed_ = true;  // worth a save even if no boundary moves
  }
  // The newest rename that freed the name is the one the new table follows.
  for (auto r = checkpoint_.target_renames.rbegin(); r != checkpoint_.target_renames.rend(); ++r) {
    if (r->from != label) continue;
    if (!r->from_created_again) created_targets_changed_ = true;
    r->from_created_again = true;
    break;
  }
}

void CheckpointTracker::AddReplicatedTable(const std::string& label) {
  if (!checkpoint_.replicated_tables) checkpoint_.replicated_tables.emplace();
  auto& tables = *checkpoint_.replicated_tables;
  auto it = std::lower_bound(tables.begin(), tables.end(), label);
  if (it == tables.end() || *it != label) {
    tables.insert(it, label);
    created_targets_changed_ = true;
  }
}

void CheckpointTracker::AddTableStart(state::TableStart start) {
  if (checkpoint_.table_copy) {
    // fresh_targets and resume_from run parallel to tables: an entry leaves all of them, or the
    // checkpoint saved between two tables of one hand-over would not load.
    state::TableCopy& copy = *checkpoint_.table_copy;
    auto it = std::find(copy.tables.begin(), copy.tables.end(), start.table);
    if (it != copy.tables.end()) {
      const auto index = it - copy.tables.begin();
      if (static_cast<size_t>(index) < copy.fresh_targets.size())
        copy.fresh_targets.erase(copy.fresh_targets.begin() + index);
      if (static_cast<size_t>(index) < copy.resume_from.size())
        copy.resume_from.erase(copy.resume_from.begin() + index);
      copy.tables.erase(it);
    }
    if (copy.tables.empty()) checkpoint_.table_copy.reset();
  }
  AddReplicatedTable(start.table);
  std::erase_if(checkpoint_.table_starts,
                [&](const state::TableStart& t) { return t.table == start.table; });
  checkpoint_.table_starts.push_back(std::move(start));
  created_targets_changed_ = true;
}

void CheckpointTracker::ClearTableCopy() {
  checkpoint_.table_copy.reset();
  created_targets_changed_ = true;
}

void CheckpointTracker::AddTargetsToDrop(const std::vector<std::string>& labels) {
  std::vector<std::string>& to_drop = checkpoint_.targets_to_drop;
  for (const std::string& label : labels) {
    auto at = std::lower_bound(to_drop.begin(), to_drop.end(), label);
    if (at != to_drop.end() && *at == label) continue;
    to_drop.insert(at, label);
    created_targets_changed_ = true;
  }
}

void CheckpointTracker::RemoveTargetsToDrop(const std::vector<std::string>& labels) {
  for (const std::string& label : labels) {
    if (std::erase(checkpoint_.targets_to_drop, label) > 0) created_targets_changed_ = true;
  }
}

void CheckpointTracker::AddStopNow(state::StoppedTable stop) {
  checkpoint_.stopped_tables.push_back(std::move(stop));
  created_targets_changed_ = true;
}

void CheckpointTracker::RemoveStop(const std::string& database, const std::string& table) {
  auto same = [&](const state::StoppedTable& s) {
    return s.database == database && s.table == table;
  };
  if (std::erase_if(checkpoint_.stopped_tables, same) > 0) created_targets_changed_ = true;
  // Pending stops keep their places (boundaries count them); an emptied one is skipped.
  for (state::StoppedTable& s : stops_) {
    if (same(s)) s = {};
  }
}

void CheckpointTracker::RemoveTableRepair(const std::string& table) {
  std::erase_if(checkpoint_.table_repairs,
                [&](const state::TableRepair& r) { return r.table == table; });
}

void CheckpointTracker::RemovePendingCommand(const std::string& table) {
  if (std::erase_if(checkpoint_.pending_commands,
                    [&](const state::PendingCommand& c) { return c.table == table; }) > 0) {
    created_targets_changed_ = true;
  }
}

void CheckpointTracker::AddPendingCommand(state::PendingCommand command) {
  if (checkpoint_.FindPending(command.table) != nullptr) return;
  checkpoint_.pending_commands.push_back(std::move(command));
  created_targets_changed_ = true;
}

void CheckpointTracker::AddTargetRename(state::TargetRename rename) {
  AddCreatedTarget(rename.to);
  // A replay that meets a RENAME recorded before a kill -9 whose target was not renamed yet
  // renames it now and records it again. A second record would be the older one for
  // AddCreatedTarget's mark (which goes to the newest), and passing it would take the name that
  // was created again from rowbridge's tables.
  for (const state::TargetRename& r : checkpoint_.target_renames) {
    if (state::SameRename(r, rename)) return;
  }
  checkpoint_.target_renames.push_back(std::move(rename));
  created_targets_changed_ = true;
}

void CheckpointTracker::AddTargetAlias(state::TargetAlias alias) {
  for (const state::TargetAlias& a : checkpoint_.target_aliases) {
    if (a.table == alias.table && a.file == alias.file && a.position == alias.position) return;
  }
  checkpoint_.target_aliases.push_back(std::move(alias));
  created_targets_changed_ = true;
}

void CheckpointTracker::EndTargetAlias(const state::TargetAlias& ended) {
  for (state::TargetAlias& a : checkpoint_.target_aliases) {
    if (a.table != ended.table || a.file != ended.file || a.position != ended.position) continue;
    if (a.until_file == ended.until_file && a.until_position == ended.until_position) continue;
    a.until_file = ended.until_file;
    a.until_position = ended.until_position;
    created_targets_changed_ = true;
  }
}

void CheckpointTracker::DropPassedRecords() {
  if (!checkpoint_.table_starts.empty()) {
    const schema::BinlogPosition at{checkpoint_.file, checkpoint_.position};
    std::erase_if(checkpoint_.table_starts, [&](const state::TableStart& t) {
      return schema::BinlogPosition{t.file, t.position} <= at;
    });
  }
  if (!checkpoint_.target_renames.empty()) {
    // The position is the RENAME's own; a boundary at it is just before the statement.
    const schema::BinlogPosition at{checkpoint_.file, checkpoint_.position};
    const std::vector<state::TargetRename> renames = checkpoint_.target_renames;
    size_t index = 0;
    std::erase_if(checkpoint_.target_renames, [&](const state::TargetRename& r) {
      const size_t i = index++;
      if (!(schema::BinlogPosition{r.file, r.position} < at)) return false;
      // A later rename gave the name to another of rowbridge's tables (a swap: RENAME t TO
      // _t_del, _t_gho TO t), also when a replay found it done and did not record it again.
      const bool renamed_into =
          std::any_of(renames.begin() + static_cast<long>(i) + 1, renames.end(),
                      [&](const state::TargetRename& later) { return later.to == r.from; });
      if (!r.from_created_again && !renamed_into) std::erase(checkpoint_.created_targets, r.from);
      return true;
    });
  }
  if (!checkpoint_.target_aliases.empty()) {
    // Like a rename's: a boundary at the end's position is just before the statement that ends it.
    const schema::BinlogPosition at{checkpoint_.file, checkpoint_.position};
    std::erase_if(checkpoint_.target_aliases, [&](const state::TargetAlias& a) {
      return !a.until_file.empty() && schema::BinlogPosition{a.until_file, a.until_position} < at;
    });
  }
}

bool CheckpointTracker::Advance(uint64_t lowest_unflushed) {
  bool moved = created_targets_changed_;
  created_targets_changed_ = false;
  bool gtids_changed = false;
  uint32_t last_file = 0;
  if (!holds_.empty()) lowest_unflushed = std::min(lowest_unflushed, *holds_.begin());
  while (!boundaries_.empty() && boundaries_.front().next_version <= lowest_unflushed) {
    const Boundary& b = boundaries_.front();
    last_file = b.file_index;
    checkpoint_.position = b.position;
    checkpoint_.next_version = b.next_version;
    checkpoint_.file = files_[b.file_index];
    while (file_states_applied_ < b.file_states_end) {
      // A whole state we have already is exact; the file's own adds nothing to it.
      if (!gtids_whole_) {
        const FileGtidState& f = file_states_.front();
        if (f.flavor == state::GtidFlavor::kMysql) {
          mysql_gtids_ = mysql::MysqlGtidSet::Parse(f.state);
        } else {
          mariadb_gtids_ = mysql::MariadbGtidPosition::Parse(f.state);
        }
        checkpoint_.gtid_flavor = f.flavor;
        gtids_whole_ = true;
        gtids_changed = true;
      }
      file_states_.pop_front();
      ++file_states_applied_;
    }
    if (!gtids_whole_) {
      // No GTID state to add to: the checkpoint resumes by file:pos.
    } else if (b.gtid.flavor == state::GtidFlavor::kMysql) {
      mysql_gtids_.Add(b.gtid.uuid, b.gtid.tag, b.gtid.gno);
      checkpoint_.gtid_flavor = state::GtidFlavor::kMysql;
      gtids_changed = true;
    } else if (b.gtid.flavor == state::GtidFlavor::kMariadb) {
      mariadb_gtids_.Update(b.gtid.mariadb);
      checkpoint_.gtid_flavor = state::GtidFlavor::kMariadb;
      gtids_changed = true;
    }
    while (stops_applied_ < b.stops_end) {
      if (!stops_.front().table.empty()) {
        checkpoint_.stopped_tables.push_back(std::move(stops_.front()));
      }
      stops_.pop_front();
      ++stops_applied_;
    }
    while (schemas_applied_ < b.schemas_end) {
      checkpoint_.schema_history = std::move(schemas_.front());
      schemas_.pop_front();
      ++schemas_applied_;
    }
    boundaries_.pop_front();
    moved = true;
  }
  if (gtids_changed) {
    checkpoint_.gtid = checkpoint_.gtid_flavor == state::GtidFlavor::kMysql
                           ? mysql_gtids_.ToString()
                           : mariadb_gtids_.ToString();
  }
  if (moved) DropPassedRecords();
  if (moved && last_file > 0) {
    // Boundaries still queued refer to later files; drop the names no one uses any more.
    files_.erase(files_.begin(), files_.begin() + last_file);
    for (Boundary& b : boundaries_) b.file_index -= last_file;
  }
  return moved;
}

}  // namespace rowbridge::pipeline
