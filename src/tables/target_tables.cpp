#include "tables/target_tables.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <thread>

#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/select_number.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "mapping/ddl.h"

namespace rowbridge::tables {

namespace {

std::string_view StringAt(clickhouse::Block& block, size_t column, size_t row) {
  return clickhouse::As<clickhouse::ColumnString>(block.At(column)).At(row);
}

// The SQL (UInt8) that tells a removal row of `target` from the others; 0 when the table has no
// such column.
std::string RemovalExpression(const TargetTable& target) {
  const bool has =
      std::any_of(target.columns.begin(), target.columns.end(),
                  [&](const mapping::TargetColumn& c) { return c.name == target.removal_column; });
  if (!has || target.removal_column.empty()) return "toUInt8(0)";
  const std::string column = clickhouse::QuoteIdentifier(target.removal_column);
  if (target.mode == mapping::TableMode::kChangelog) {
    return fmt::format("toUInt8(toString({}) = 'delete')", column);
  }
  return fmt::format("toUInt8({} != 0)", column);
}

// Every row of `target` whose version is in [from, to] in `client`'s database.`table` (the
// target's own or its local data table), ascending, with repeats.
std::vector<PresentRow> ReadVersions(clickhouse::Client& client, const TargetTable& target,
                                     const std::string& table, uint64_t from, uint64_t to) {
  std::vector<PresentRow> rows;
  const std::string column = clickhouse::QuoteIdentifier(target.version_column);
  client.Select(
      fmt::format("SELECT toUInt64({0}) AS v, {1} AS r FROM {2} WHERE {0} >= {3}{4} ORDER BY v, r",
                  column, RemovalExpression(target),
                  clickhouse::QuoteQualified(target.database, table), from,
                  to == UINT64_MAX ? std::string() : fmt::format(" AND {} <= {}", column, to)),
      [&](clickhouse::Block& block) {
        const auto& versions = clickhouse::As<clickhouse::ColumnUInt64>(block.At(0));
        const auto& removals = clickhouse::As<clickhouse::ColumnUInt8>(block.At(1));
        for (size_t r = 0; r < versions.Size(); ++r) {
          rows.push_back({versions.At(r), removals.At(r) != 0});
        }
        return true;
      });
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

TargetCatalog::TargetCatalog(clickhouse::ClientOptions options, std::string cluster)
    : options_(std::move(options)),
      cluster_(std::move(cluster)),
      local_suffix_(mapping::DdlOptions{}.local_suffix) {}

const std::vector<ClusterHost>& TargetCatalog::Hosts() {
  if (hosts_.empty()) {
    hosts_ = ListClusterHosts(client(), cluster_);
    host_clients_.resize(hosts_.size());
  }
  return hosts_;
}

clickhouse::Client* TargetCatalog::HostClient(size_t i, const std::string& why) {
  // A new connection each time: a node may have gone down or come back since the last call, and
  // these calls are few (once per session, once per table at its first change).
  std::unique_ptr<clickhouse::Client>& c = host_clients_.at(i);
  c = ConnectUnlessDown(options_, hosts_.at(i), why);
  if (c == nullptr) {
    spdlog::warn(
        "ClickHouse node {}:{} (shard {} of cluster {}) refuses connections: taken as down",
        hosts_[i].host, hosts_[i].port, hosts_[i].shard, cluster_);
  }
  return c.get();
}

clickhouse::Client& TargetCatalog::client() {
  if (client_ == nullptr) {
    client_ = std::make_unique<clickhouse::Client>(options_);
  } else if (!client_->connected()) {
    client_->Reconnect();
  }
  return *client_;
}

const clickhouse::ServerFeatures& TargetCatalog::features() {
  if (!features_) {
    const auto& s = client().server();
    features_.emplace(clickhouse::ServerVersion{static_cast<uint32_t>(s.version_major),
                                                static_cast<uint32_t>(s.version_minor),
                                                static_cast<uint32_t>(s.version_patch)});
  }
  return *features_;
}

std::optional<std::vector<mapping::TargetColumn>> TargetCatalog::ReadColumns(
    const std::string& database, const std::string& table) {
  std::vector<mapping::TargetColumn> columns;
  client().Select(fmt::format("SELECT name, type, default_kind FROM system.columns WHERE database "
                              "= {} AND table = {}",
                              clickhouse::QuoteString(database), clickhouse::QuoteString(table)),
                  [&](clickhouse::Block& block) {
                    for (size_t r = 0; r < block.RowCount(); ++r) {
                      mapping::TargetColumn c;
                      c.name = std::string(StringAt(block, 0, r));
                      const std::string type(StringAt(block, 1, r));
                      try {
                        c.type = clickhouse::ParseTypeName(type);
                      } catch (const Error& e) {
                        // Keep the column (so a plan can say it cannot write it) with its name.
                        c.type.code = clickhouse::TypeCode::kString;
                        c.type.name = type;
                        c.default_kind = "UNSUPPORTED";
                        columns.push_back(std::move(c));
                        continue;
                      }
                      c.default_kind = std::string(StringAt(block, 2, r));
                      columns.push_back(std::move(c));
                    }
                    return true;
                  });
  if (columns.empty()) return std::nullopt;
  return columns;
}

void TargetCatalog::Execute(const std::string& sql) {
  client().Execute(sql);
}

std::string TargetCatalog::DefaultExpression(const std::string& database, const std::string& table,
                                             const std::string& column) {
  std::string expression;
  client().Select(
      fmt::format("SELECT default_kind, default_expression FROM system.columns WHERE database = {} "
                  "AND table = {} AND name = {}",
                  clickhouse::QuoteString(database), clickhouse::QuoteString(table),
                  clickhouse::QuoteString(column)),
      [&](clickhouse::Block& block) {
        if (block.RowCount() > 0 && StringAt(block, 0, 0) == "DEFAULT") {
          expression = std::string(StringAt(block, 1, 0));
        }
        return true;
      });
  return expression;
}

std::vector<std::string> TargetCatalog::WriteRestrictions() {
  std::string readonly = "0";
  std::string allow_ddl = "1";
  client().Select("SELECT name, value FROM system.settings WHERE name IN ('readonly', 'allow_ddl')",
                  [&](clickhouse::Block& block) {
                    for (size_t r = 0; r < block.RowCount(); ++r) {
                      const std::string_view name = StringAt(block, 0, r);
                      (name == "readonly" ? readonly : allow_ddl) =
                          std::string(StringAt(block, 1, r));
                    }
                    return true;
                  });
  std::vector<std::string> reasons;
  const std::string& user = options_.user;
  if (readonly != "0") {
    reasons.push_back(fmt::format(
        "user {} is read-only (readonly={} in its settings profile): rowbridge cannot create "
        "tables, insert rows or alter tables; give it a profile with readonly=0",
        user, readonly));
  } else if (allow_ddl == "0") {
    reasons.push_back(fmt::format(
        "user {} may not run DDL (allow_ddl=0 in its settings profile): rowbridge cannot create "
        "or alter tables; give it a profile with allow_ddl=1",
        user));
  }
  return reasons;
}

uint64_t TargetCatalog::SelectNumber(const std::string& sql) {
  return clickhouse::SelectUInt64(client(), sql);
}

uint64_t TargetCatalog::RowCount(const std::string& database, const std::string& table) {
  return SelectNumber(
      fmt::format("SELECT toUInt64(count()) FROM {}", clickhouse::QuoteQualified(database, table)));
}

std::string TargetCatalog::PartsWithoutColumnSql(const std::string& database,
                                                 const std::string& table,
                                                 const std::string& column) {
  const std::string where =
      fmt::format("database = {} AND table = {} AND active", clickhouse::QuoteString(database),
                  clickhouse::QuoteString(table));
  return fmt::format(
      "SELECT toUInt64(count()) FROM system.parts WHERE {0} AND name NOT IN (SELECT name FROM "
      "system.parts_columns WHERE {0} AND column = {1})",
      where, clickhouse::QuoteString(column));
}

uint64_t TargetCatalog::PartsWithoutColumn(const std::string& database, const std::string& table,
                                           const std::string& column) {
  return SelectNumber(PartsWithoutColumnSql(database, table, column));
}

std::string TargetCatalog::PendingMutationsSql(const std::string& database,
                                               const std::string& table) {
  const std::string where =
      fmt::format("database = {} AND table = {}", clickhouse::QuoteString(database),
                  clickhouse::QuoteString(table));
  // A mutation's block number per partition ('' for every partition: a plain MergeTree) bounds
  // the parts it changes. A CROSS JOIN, not a lambda over the parts: 18.16 loses a lambda's
  // captured column when the subquery it reads has more than one.
  return fmt::format(
      "SELECT toUInt64(count() + (SELECT count() FROM system.replication_queue WHERE {0})) FROM "
      "(SELECT partition_id, min_block_number, data_version FROM system.parts WHERE {0} AND "
      "active) CROSS JOIN (SELECT mutation_partition, mutation_number FROM system.mutations ARRAY "
      "JOIN block_numbers.partition_id AS mutation_partition, block_numbers.number AS "
      "mutation_number WHERE {0} AND is_done = 0) WHERE (mutation_partition = '' OR "
      "mutation_partition = partition_id) AND min_block_number < mutation_number AND data_version "
      "< mutation_number",
      where);
}

uint64_t TargetCatalog::PendingMutations(const std::string& database, const std::string& table) {
  return SelectNumber(PendingMutationsSql(database, table));
}

uint64_t TargetCatalog::MaxVersion(const std::string& database, const std::string& table,
                                   const std::string& version_column, uint64_t from) {
  uint64_t max = 0;
  const std::string column = clickhouse::QuoteIdentifier(version_column);
  client().Select(
      fmt::format("SELECT toUInt64(max({0})) FROM {1}{2}", column,
                  clickhouse::QuoteQualified(database, table),
                  from == 0 ? std::string() : fmt::format(" WHERE {} >= {}", column, from)),
      [&](clickhouse::Block& block) {
        if (block.RowCount() > 0) {
          max = clickhouse::As<clickhouse::ColumnUInt64>(block.At(0)).At(0);
        }
        return true;
      });
  return max;
}

std::vector<PresentRow> TargetCatalog::VersionsFrom(const TargetTable& target, uint64_t from,
                                                    uint64_t to) {
  if (!cluster_.empty()) return ClusterVersionsFrom(target, from, to);
  return ReadVersions(client(), target, target.table, from, to);
}

std::vector<PresentRow> TargetCatalog::ClusterVersionsFrom(const TargetTable& target, uint64_t from,
                                                           uint64_t to) {
  const std::string& database = target.database;
  const std::string data = target.table + local_suffix_;
  const std::string why = fmt::format("which versions of {}.{} it holds", database, data);
  const std::vector<ClusterHost>& hosts = Hosts();
  std::vector<PresentRow> versions;
  for (size_t first = 0; first < hosts.size();) {
    const uint32_t shard = hosts[first].shard;
    size_t end = first;
    while (end < hosts.size() && hosts[end].shard == shard) ++end;
    // The shard's versions: the union of its replicas', each as often as any replica has it.
    std::vector<PresentRow> in_shard;
    std::vector<std::string> down;
    std::vector<clickhouse::Client*> answering;
    for (size_t i = first; i < end; ++i) {
      clickhouse::Client* c = HostClient(i, why);
      if (c == nullptr) {
        down.push_back(fmt::format("{}:{}", hosts[i].host, hosts[i].port));
        continue;
      }
      answering.push_back(c);
      std::vector<PresentRow> replica = ReadVersions(*c, target, data, from, to);
      std::vector<PresentRow> merged;
      merged.reserve(std::max(in_shard.size(), replica.size()));
      std::set_union(in_shard.begin(), in_shard.end(), replica.begin(), replica.end(),
                     std::back_inserter(merged));
      in_shard = std::move(merged);
    }
    if (answering.empty()) {
      Fail(ErrorCode::kNetwork,
           "no replica of shard {} of cluster {} answers ({} refuse connections): which versions "
           "of {}.{} it holds after the checkpoint is not known",
           shard, cluster_, fmt::join(down, ", "), database, data);
    }
    if (!down.empty()) {
      const std::string pending_sql = fmt::format(
          "SELECT toUInt64(count()) FROM system.replication_queue WHERE database = {} AND table "
          "= {} AND type = 'GET_PART'",
          clickhouse::QuoteString(database), clickhouse::QuoteString(data));
      for (clickhouse::Client* c : answering) {
        const uint64_t pending = clickhouse::SelectUInt64(*c, pending_sql);
        if (pending > 0) {
          Fail(ErrorCode::kNetwork,
               "replica(s) {} of shard {} of cluster {} are down, and replica {} still has {} "
               "part(s) of {}.{} to fetch, which may hold versions only the down replica has: "
               "which versions the shard holds after the checkpoint is not known until the "
               "parts arrive (bring the replica back)",
               fmt::join(down, ", "), shard, cluster_, c->peer(), pending, database, data);
        }
      }
    }
    std::vector<PresentRow> all;
    all.reserve(versions.size() + in_shard.size());
    std::merge(versions.begin(), versions.end(), in_shard.begin(), in_shard.end(),
               std::back_inserter(all));
    versions = std::move(all);
    first = end;
  }
  return versions;
}

void TargetCatalog::WaitForQueries(clickhouse::Client& client, const std::string& condition,
                                   std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  bool killed = false;
  for (;;) {
    const uint64_t running = clickhouse::SelectUInt64(
        client, fmt::format("SELECT toUInt64(count()) FROM system.processes WHERE {}", condition));
    if (running == 0) return;
    if (killed && std::chrono::steady_clock::now() >= deadline + patience) {
      Fail(ErrorCode::kTimeout,
           "{} INSERT(s) of an earlier rowbridge connection still run on ClickHouse {} after "
           "KILL QUERY",
           running, client.peer());
    }
    if (!killed && std::chrono::steady_clock::now() >= deadline) {
      spdlog::warn("{} INSERT(s) of an earlier connection still run on ClickHouse {}; killing them",
                   running, client.peer());
      client.Execute(fmt::format("KILL QUERY WHERE {} SYNC", condition));
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void TargetCatalog::WaitForInserts(const std::string& prefix, std::chrono::milliseconds patience,
                                   const std::string& except) {
  std::string condition = fmt::format("query_id LIKE {}", clickhouse::QuoteString(prefix + "%"));
  if (!except.empty()) {
    condition += fmt::format(" AND query_id NOT LIKE {}", clickhouse::QuoteString(except + "%"));
  }
  if (cluster_.empty()) {
    WaitForQueries(client(), condition, patience);
    return;
  }
  const std::string why = "whether an INSERT of an earlier rowbridge connection still runs there";
  for (size_t i = 0; i < Hosts().size(); ++i) {
    if (clickhouse::Client* c = HostClient(i, why)) WaitForQueries(*c, condition, patience);
  }
  WaitForForwardedInserts(patience);
}

void TargetCatalog::WaitForForwardedInserts(std::chrono::milliseconds patience) {
  const std::string why = "whether an INSERT forwarded by another node still runs there";
  constexpr const char* kForwarded =
      "client_name = 'ClickHouse server' AND query LIKE 'INSERT INTO %'";
  for (size_t i = 0; i < Hosts().size(); ++i) {
    clickhouse::Client* c = HostClient(i, why);
    if (c == nullptr) continue;
    std::vector<std::string> ids;
    c->Select(fmt::format("SELECT query_id FROM system.processes WHERE {}", kForwarded),
              [&](clickhouse::Block& block) {
                for (size_t r = 0; r < block.RowCount(); ++r)
                  ids.emplace_back(StringAt(block, 0, r));
                return true;
              });
    if (ids.empty()) continue;
    std::string quoted;
    for (const std::string& id : ids) {
      if (!quoted.empty()) quoted += ", ";
      quoted += clickhouse::QuoteString(id);
    }
    const std::string sql = fmt::format(
        "SELECT toUInt64(count()) FROM system.processes WHERE query_id IN ({})", quoted);
    const auto deadline = std::chrono::steady_clock::now() + patience;
    for (;;) {
      const uint64_t running = clickhouse::SelectUInt64(*c, sql);
      if (running == 0) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        Fail(ErrorCode::kTimeout,
             "{} INSERT(s) forwarded by another ClickHouse server still run on {} after {} ms: "
             "they may carry rows of an earlier rowbridge connection's Distributed INSERT, so the "
             "versions already written are not final yet (they are not killed: they may be "
             "another job's)",
             running, c->peer(), patience.count());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

}  // namespace rowbridge::tables
