#include "tables/target_tables.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/select_number.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"

namespace rowbridge::tables {

namespace {

std::string_view StringAt(clickhouse::Block& block, size_t column, size_t row) {
  return clickhouse::As<clickhouse::ColumnString>(block.At(column)).At(row);
}

}  // namespace

TargetCatalog::TargetCatalog(clickhouse::ClientOptions options) : options_(std::move(options)) {}

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
  return fmt::format(
      "SELECT toUInt64(count()) FROM system.mutations WHERE database = {} AND table = {} AND "
      "is_done = 0",
      clickhouse::QuoteString(database), clickhouse::QuoteString(table));
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

std::vector<uint64_t> TargetCatalog::VersionsFrom(const std::string& database,
                                                  const std::string& table,
                                                  const std::string& version_column,
                                                  uint64_t from) {
  std::vector<uint64_t> versions;
  const std::string column = clickhouse::QuoteIdentifier(version_column);
  client().Select(fmt::format("SELECT toUInt64({0}) AS v FROM {1} WHERE {0} >= {2} ORDER BY v",
                              column, clickhouse::QuoteQualified(database, table), from),
                  [&](clickhouse::Block& block) {
                    const auto& c = clickhouse::As<clickhouse::ColumnUInt64>(block.At(0));
                    for (size_t r = 0; r < c.Size(); ++r) versions.push_back(c.At(r));
                    return true;
                  });
  std::sort(versions.begin(), versions.end());
  return versions;
}

void TargetCatalog::WaitForInserts(const std::string& prefix, std::chrono::milliseconds patience,
                                   const std::string& except) {
  std::string condition = fmt::format("query_id LIKE {}", clickhouse::QuoteString(prefix + "%"));
  if (!except.empty()) {
    condition += fmt::format(" AND query_id NOT LIKE {}", clickhouse::QuoteString(except + "%"));
  }
  const auto deadline = std::chrono::steady_clock::now() + patience;
  bool killed = false;
  for (;;) {
    uint64_t running = 0;
    client().Select(
        fmt::format("SELECT toUInt64(count()) FROM system.processes WHERE {}", condition),
        [&](clickhouse::Block& block) {
          if (block.RowCount() > 0)
            running = clickhouse::As<clickhouse::ColumnUInt64>(block.At(0)).At(0);
          return true;
        });
    if (running == 0) return;
    if (killed && std::chrono::steady_clock::now() >= deadline + patience) {
      Fail(ErrorCode::kTimeout,
           "{} INSERT(s) of an earlier rowbridge connection still run on ClickHouse {} after "
           "KILL QUERY",
           running, client().peer());
    }
    if (!killed && std::chrono::steady_clock::now() >= deadline) {
      spdlog::warn("{} INSERT(s) of an earlier connection still run on ClickHouse {}; killing them",
                   running, client().peer());
      client().Execute(fmt::format("KILL QUERY WHERE {} SYNC", condition));
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace rowbridge::tables
