// Internal to the config loader (loader.h, the contract): ConfigLoader, which reads one parsed
// document section by section into a Config, reporting every problem with its place (problems.h)
// rather than stopping at the first. Declared once for the files that hold its parts:
// loader.cpp (the document, ParseConfig, LoadConfigFile), loader_endpoints.cpp (source, target,
// TLS), loader_tables.cpp (table rules and the checks across rules) and loader_sections.cpp
// (snapshot, batch, memory, state, ha, http, log). Nothing outside those files includes it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "config/loader.h"
#include "config/table_pattern.h"
#include "config/yaml_reader.h"

namespace rowbridge::config {

class ConfigLoader {
 public:
  ConfigLoader(ReadContext& ctx, const LoadOptions& options, std::string_view source_name);

  Config Read(const YAML::Node& root_node);

 private:
  // ---- the document and its problems (loader.cpp) ----

  // Shorthands for the readers' durations and required keys.
  using hours = std::chrono::hours;
  using milliseconds = std::chrono::milliseconds;
  using seconds = std::chrono::seconds;
  static constexpr Presence kRequired = Presence::kRequired;

  // Required sections are reported once as missing instead of once per required key.
  bool Section(MapReader& root, std::string_view name);

  void Problem(const MapReader& m, std::string_view key, std::string message);

  void Warn(const YAML::Mark& mark, std::string path, std::string message);

  // An optional string that, when given, must not be empty.
  void NonEmpty(MapReader& m, std::string_view key, std::string& out);

  std::string ResolvePath(const std::string& path) const;

  // ---- the source and the target (loader_endpoints.cpp) ----

  void ReadTls(MapReader m, TlsConfig& tls, bool is_source);

  void ReadSource(MapReader m, SourceConfig& s);

  void ReadTarget(MapReader m, TargetConfig& t);

  // ---- table rules and the checks across them (loader_tables.cpp) ----

  // A list of column names: none may be empty (checked by StringList) or longer than MySQL allows.
  void Columns(MapReader& m, std::string_view key, std::vector<std::string>& out);

  void ValidateTimezone(MapReader& m, std::string_view key, const std::string& zone);

  void ReadMetaColumns(MapReader m, TableRule& rule, const std::string& rule_path);

  // Where a rule's keys are, for the checks across rules.
  struct RuleLocation {
    std::string path;  // "tables[3]"
    YAML::Mark match;
    YAML::Mark target;
  };

  void ReadRule(const YAML::Node& node, size_t index, TableRule& rule);

  // `exclude`: patterns of tables the rule leaves to later rules. One that no `match` pattern
  // can meet excludes nothing, and a `match` pattern inside an exclude can never match: both are
  // mistakes, as a shadowed rule is.
  void ReadExclude(MapReader& m, const std::string& path, TableRule& rule);

  static bool OverlapsAny(const TablePattern& pattern, const std::vector<TablePattern>& others);
  static bool CoveredByAny(const TablePattern& pattern, const std::vector<TablePattern>& others);

  static std::string MatchPath(const std::string& rule_path, const TableRule& rule, size_t i);

  void ReadTables(MapReader& root, Config& config);

  // First match wins, so a pattern that an earlier rule covers completely (and does not exclude
  // any of) can never match: that is always a mistake (usually a specific rule placed after a
  // general one). Two patterns of which neither contains the other (shop.* and *.orders) are
  // ambiguous to a reader, legitimate but worth a warning; a specific pattern before a general
  // one is not.
  void CheckRuleOrder(const Config& config);

  // Rules may merge many source tables into one target (a fixed target name), but then every rule
  // writing there must agree on how the table is shaped.
  void CheckMergedTargets(const Config& config);

  // ---- the other sections (loader_sections.cpp) ----

  void ReadSnapshot(MapReader m, SnapshotConfig& s);

  void ReadBatch(MapReader m, BatchConfig& b);

  void ReadMemory(MapReader m, Config& config);

  void ReadState(MapReader m, StateConfig& s);

  void ReadHa(MapReader m, HaConfig& ha);

  // Why `hosts` is not a ZooKeeper connect string (host:port,...; a /chroot suffix belongs in
  // `path`); nullopt when it is one.
  static std::optional<std::string> BadZooKeeperHosts(const std::string& hosts);

  // Why `path` is not an absolute ZooKeeper node path; nullopt when it is one.
  static std::optional<std::string> BadZooKeeperPath(const std::string& path);

  void ReadHttp(MapReader m, Config& config);

  void ReadLog(MapReader m, LogConfig& l);

  ReadContext& ctx_;
  const LoadOptions& options_;
  std::string_view source_name_;
  std::vector<RuleLocation> locations_;  // one per rule, same order as Config::tables
  YAML::Mark heartbeat_mark_;            // source.heartbeat_period, for the health check
  YAML::Mark batch_bytes_mark_;          // batch.max_bytes, for the memory check
};

}  // namespace rowbridge::config
