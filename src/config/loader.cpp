#include "config/loader.h"

#include <fmt/ranges.h>
#include <sys/stat.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "config/problems.h"
#include "config/target_template.h"
#include "config/units.h"
#include "config/yaml_reader.h"

namespace rowbridge::config {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr size_t kMaxConfigBytes = 1 << 20;
// The checks between rules are quadratic; a config needing more uses wildcards.
constexpr size_t kMaxPatterns = 1000;

// Counts documents without building them.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

constexpr auto kRequired = Presence::kRequired;

class Loader {
 public:
  Loader(ReadContext& ctx, const LoadOptions& options, std::string_view source_name)
      : ctx_(ctx), options_(options), source_name_(source_name) {}

  Config Read(const YAML::Node& root_node) {
    Config config;
    MapReader root(ctx_, root_node, "", root_node.Mark());
    if (Section(root, "source")) ReadSource(root.Map("source"), config.source);
    if (Section(root, "target")) ReadTarget(root.Map("target"), config.target);
    if (Section(root, "tables")) ReadTables(root, config);
    ReadSnapshot(root.Map("snapshot"), config.snapshot);
    ReadBatch(root.Map("batch"), config.batch);
    ReadMemory(root.Map("memory"), config);
    ReadState(root.Map("state"), config.state);
    ReadHttp(root.Map("http"), config);
    ReadHa(root.Map("ha"), config.ha);
    ReadLog(root.Map("log"), config.log);
    root.Finish();
    return config;
  }

 private:
  // Required sections are reported once as missing instead of once per required key.
  bool Section(MapReader& root, std::string_view name) {
    if (root.Has(name)) return true;
    AddProblem(ctx_, root.mark(), name, "required section is missing");
    return false;
  }

  void Problem(const MapReader& m, std::string_view key, std::string message) {
    AddProblem(ctx_, m.MarkOf(key), m.PathOf(key), std::move(message));
  }

  void Warn(const YAML::Mark& mark, std::string path, std::string message) {
    if (options_.warnings == nullptr) return;
    options_.warnings->push_back(
        config::Problem{mark.line + 1, mark.column + 1, std::move(path), std::move(message)}.Render(
            source_name_));
  }

  // An optional string that, when given, must not be empty.
  void NonEmpty(MapReader& m, std::string_view key, std::string& out) {
    std::string value;
    if (!m.String(key, value)) return;
    if (value.empty()) {
      Problem(m, key, "must not be empty (remove the key to use the default)");
      return;
    }
    out = std::move(value);
  }

  std::string ResolvePath(const std::string& path) const {
    if (path.empty() || options_.base_directory.empty()) return path;
    std::filesystem::path p(path);
    if (p.is_absolute()) return path;
    return (std::filesystem::path(options_.base_directory) / p).lexically_normal().string();
  }

  void ReadTls(MapReader m, TlsConfig& tls, bool is_source) {
    m.Enum("mode", tls.mode,
           {{"disabled", TlsMode::kDisabled},
            {"preferred", TlsMode::kPreferred},
            {"required", TlsMode::kRequired},
            {"verify-ca", TlsMode::kVerifyCa},
            {"verify-identity", TlsMode::kVerifyIdentity}});
    NonEmpty(m, "ca", tls.ca);
    NonEmpty(m, "cert", tls.cert);
    NonEmpty(m, "key", tls.key);
    if (!is_source && tls.mode == TlsMode::kPreferred) {
      Problem(m, "mode",
              "preferred is not possible for ClickHouse: a native-protocol port is either TLS or "
              "plain (use required with the TLS port, usually 9440, or disabled)");
    }
    const bool verifying = tls.mode == TlsMode::kVerifyCa || tls.mode == TlsMode::kVerifyIdentity;
    for (std::string_view key : {"ca", "cert", "key"}) {
      if (!m.Has(key)) continue;
      if (tls.mode == TlsMode::kDisabled) {
        Problem(m, key, fmt::format("has no effect while {} is disabled", m.PathOf("mode")));
      } else if (key == "ca" && !verifying) {
        Problem(m, key,
                fmt::format("is only used to verify the server (mode verify-ca or "
                            "verify-identity), but {} is {}",
                            m.PathOf("mode"), TlsModeName(tls.mode)));
      }
    }
    if (m.Has("cert") != m.Has("key")) {
      std::string_view missing = m.Has("cert") ? "key" : "cert";
      Problem(m, m.Has("cert") ? "cert" : "key",
              fmt::format("a client certificate needs both cert and key; {} is missing",
                          m.PathOf(missing)));
    }
    tls.ca = ResolvePath(tls.ca);
    tls.cert = ResolvePath(tls.cert);
    tls.key = ResolvePath(tls.key);
    m.Finish();
  }

  void ReadSource(MapReader m, SourceConfig& s) {
    m.String("host", s.host, kRequired);
    m.UInt("port", s.port, 1, 65535);
    m.String("user", s.user, kRequired);
    m.Secret("password", s.password);
    m.UInt("server_id", s.server_id, 1, 4294967295u, kRequired);
    m.Enum("flavor", s.flavor,
           {{"auto", SourceFlavor::kAuto},
            {"mysql", SourceFlavor::kMysql},
            {"mariadb", SourceFlavor::kMariadb}});
    ReadTls(m.Map("tls"), s.tls, true);
    // MySQL caps the heartbeat period at 4294967 seconds.
    m.Duration("heartbeat_period", s.heartbeat_period, milliseconds(100), seconds(4294967));
    m.Duration("connect_timeout", s.connect_timeout, milliseconds(100), hours(1));
    m.Duration("read_timeout", s.read_timeout, seconds(1), hours(24));
    if (s.read_timeout <= s.heartbeat_period) {
      if (m.Has("read_timeout")) {
        Problem(m, "read_timeout",
                fmt::format("must be longer than {} ({}), or an idle source looks dead; got {}",
                            m.PathOf("heartbeat_period"), FormatDuration(s.heartbeat_period),
                            FormatDuration(s.read_timeout)));
      } else {
        Problem(m, "heartbeat_period",
                fmt::format("must be shorter than {} ({}), or an idle source looks dead; got {}",
                            m.PathOf("read_timeout"), FormatDuration(s.read_timeout),
                            FormatDuration(s.heartbeat_period)));
      }
    }
    heartbeat_mark_ = m.MarkOf("heartbeat_period");
    MapReader r = m.Map("reconnect");
    r.Duration("initial_backoff", s.reconnect.initial_backoff, milliseconds(10), hours(1));
    r.Duration("max_backoff", s.reconnect.max_backoff, milliseconds(10), hours(24));
    if (s.reconnect.initial_backoff > s.reconnect.max_backoff) {
      if (r.Has("max_backoff")) {
        Problem(r, "max_backoff",
                fmt::format("must not be shorter than {} ({}); got {}", r.PathOf("initial_backoff"),
                            FormatDuration(s.reconnect.initial_backoff),
                            FormatDuration(s.reconnect.max_backoff)));
      } else {
        Problem(r, "initial_backoff",
                fmt::format("must not be longer than {} ({}); got {}", r.PathOf("max_backoff"),
                            FormatDuration(s.reconnect.max_backoff),
                            FormatDuration(s.reconnect.initial_backoff)));
      }
    }
    r.Finish();
    MapReader b = m.Map("binlog_retention");
    b.Duration("check_interval", s.binlog_retention.check_interval, milliseconds(0), hours(24));
    b.Duration("warn_below", s.binlog_retention.warn_below, milliseconds(0), hours(24 * 365));
    b.Finish();
    m.Enum("on_statement_dml", s.on_statement_dml,
           {{"stop_table", StatementDml::kStopTable}, {"stop_run", StatementDml::kStopRun}});
    m.Enum("on_purged_position", s.on_purged_position,
           {{"stop", OnPurged::kStop}, {"recopy", OnPurged::kRecopy}});
    m.Finish();
  }

  void ReadTarget(MapReader m, TargetConfig& t) {
    m.String("host", t.host, kRequired);
    NonEmpty(m, "user", t.user);
    m.Secret("password", t.password);
    NonEmpty(m, "database", t.database);
    if (m.Has("database") && t.database.find_first_of(".`") != std::string::npos) {
      Problem(m, "database", "must be a plain database name (no dots or backticks)");
    }
    ReadTls(m.Map("tls"), t.tls, false);
    // The ClickHouse convention: 9000 plain, 9440 TLS.
    t.port = t.tls.mode == TlsMode::kDisabled ? 9000 : 9440;
    m.UInt("port", t.port, 1, 65535);
    m.Enum("compression", t.compression,
           {{"auto", Compression::kAuto},
            {"lz4", Compression::kLz4},
            {"zstd", Compression::kZstd},
            {"none", Compression::kNone}});
    NonEmpty(m, "cluster", t.cluster);
    m.UInt("writers", t.writers, 1, 64);
    m.Duration("connect_timeout", t.connect_timeout, milliseconds(100), hours(1));
    m.Duration("query_timeout", t.query_timeout, seconds(1), hours(24));
    m.Finish();
  }

  // A list of column names: none may be empty (checked by StringList) or longer than MySQL allows.
  void Columns(MapReader& m, std::string_view key, std::vector<std::string>& out) {
    if (!m.StringList(key, out)) return;
    for (const std::string& column : out) {
      if (column.size() > 64) {
        Problem(m, key,
                fmt::format("column name \"{}...\" is longer than 64 characters",
                            column.substr(0, 16)));
      }
    }
  }

  void ValidateTimezone(MapReader& m, std::string_view key, const std::string& zone) {
    if (zone == "UTC") return;
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && digit(zone[1]) &&
        digit(zone[2]) && zone[3] == ':' && digit(zone[4]) && digit(zone[5])) {
      int hours_part = (zone[1] - '0') * 10 + (zone[2] - '0');
      int minutes_part = (zone[4] - '0') * 10 + (zone[5] - '0');
      if (hours_part <= 14 && minutes_part < 60) return;
    }
    bool name_like = !zone.empty() && zone.size() <= 64 && zone.front() != '/' &&
                     zone.find("..") == std::string::npos;
    for (char c : zone) {
      if (!(digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '-' ||
            c == '+' || c == '/')) {
        name_like = false;
      }
    }
    const std::filesystem::path zoneinfo("/usr/share/zoneinfo");
    std::error_code ec;
    if (name_like && (!std::filesystem::is_directory(zoneinfo, ec) ||
                      std::filesystem::is_regular_file(zoneinfo / zone, ec))) {
      return;
    }
    Problem(m, key,
            fmt::format("unknown time zone \"{}\" (use UTC, an offset such as +02:00, or a zone "
                        "name such as Europe/Berlin)",
                        zone));
  }

  void ReadMetaColumns(MapReader m, TableRule& rule, const std::string& rule_path) {
    MetaColumns& meta = rule.meta_columns;
    NonEmpty(m, "event_type", meta.event_type);
    NonEmpty(m, "version", meta.version);
    NonEmpty(m, "is_deleted", meta.is_deleted);
    const bool changelog = rule.mode == TableMode::kChangelog;
    if (!changelog && m.Has("event_type")) {
      Problem(m, "event_type",
              fmt::format("only changelog tables have an event type column, and {}.mode is "
                          "replica",
                          rule_path));
    }
    if (changelog && m.Has("is_deleted")) {
      Problem(m, "is_deleted",
              fmt::format("changelog tables have no is_deleted column (a delete is a row whose "
                          "event type is delete), and {}.mode is changelog",
                          rule_path));
    }
    std::vector<std::pair<std::string_view, const std::string*>> used = {
        {"version", &meta.version}};
    used.emplace_back(changelog ? "event_type" : "is_deleted",
                      changelog ? &meta.event_type : &meta.is_deleted);
    if (*used[0].second == *used[1].second) {
      Problem(m, m.Has(used[1].first) ? used[1].first : used[0].first,
              fmt::format("{} and {} are both named \"{}\"", m.PathOf(used[0].first),
                          m.PathOf(used[1].first), *used[0].second));
    }
    for (const auto& [key, name] : used) {
      for (std::string_view list : {"include_columns", "key"}) {
        const std::vector<std::string>& columns = list == "key" ? rule.key : rule.include_columns;
        if (std::find(columns.begin(), columns.end(), *name) != columns.end()) {
          Problem(m, key,
                  fmt::format("\"{}\" is also listed in {}.{}; the meta column would collide with "
                              "the source column (rename it here)",
                              *name, rule_path, list));
        }
      }
    }
    m.Finish();
  }

  // Where a rule's keys are, for the checks across rules.
  struct RuleLocation {
    std::string path;  // "tables[3]"
    YAML::Mark match;
    YAML::Mark target;
  };

  void ReadRule(const YAML::Node& node, size_t index, TableRule& rule) {
    const std::string path = fmt::format("tables[{}]", index);
    MapReader m(ctx_, node, path, node.Mark());
    rule.line = node.Mark().is_null() ? 0 : node.Mark().line + 1;
    if (m.StringList("match", rule.match, /*allow_single=*/true, kRequired)) {
      for (size_t i = 0; i < rule.match.size(); ++i) {
        try {
          rule.patterns.push_back(TablePattern::Parse(rule.match[i]));
        } catch (const Error& e) {
          AddProblem(ctx_, m.MarkOf("match"), MatchPath(path, rule, i), e.what());
        }
      }
      if (rule.patterns.size() != rule.match.size()) rule.patterns.clear();
    }
    ReadExclude(m, path, rule);
    if (m.String("target", rule.target)) {
      try {
        ValidateTargetTemplate(rule.target);
      } catch (const Error& e) {
        Problem(m, "target", e.what());
        rule.target = "{table}";
      }
    }
    m.Enum("mode", rule.mode,
           {{"replica", TableMode::kReplica}, {"changelog", TableMode::kChangelog}});
    Columns(m, "key", rule.key);
    NonEmpty(m, "partition_by", rule.partition_by);
    Columns(m, "include_columns", rule.include_columns);
    Columns(m, "exclude_columns", rule.exclude_columns);
    if (m.Has("include_columns") && m.Has("exclude_columns")) {
      Problem(m, "exclude_columns",
              fmt::format("cannot be combined with {}: list the columns to keep or the ones to "
                          "drop, not both",
                          m.PathOf("include_columns")));
    }
    for (const std::string& column : rule.key) {
      if (std::find(rule.exclude_columns.begin(), rule.exclude_columns.end(), column) !=
          rule.exclude_columns.end()) {
        Problem(m, "key",
                fmt::format("key column \"{}\" is excluded by {}", column,
                            m.PathOf("exclude_columns")));
      }
      if (!rule.include_columns.empty() &&
          std::find(rule.include_columns.begin(), rule.include_columns.end(), column) ==
              rule.include_columns.end()) {
        Problem(m, "key",
                fmt::format("key column \"{}\" is not in {}", column, m.PathOf("include_columns")));
      }
    }
    ReadMetaColumns(m.Map("meta_columns"), rule, path);
    MapReader conversion = m.Map("conversion");
    conversion.Enum("on_out_of_range", rule.conversion.on_out_of_range,
                    {{"error", OutOfRange::kError}, {"clamp", OutOfRange::kClamp}});
    if (conversion.String("datetime_timezone", rule.conversion.datetime_timezone)) {
      ValidateTimezone(conversion, "datetime_timezone", rule.conversion.datetime_timezone);
    }
    conversion.Finish();
    m.Bool("create_table", rule.create_table);
    m.Enum("schema_changes", rule.schema_changes,
           {{"auto", SchemaChanges::kAuto},
            {"apply", SchemaChanges::kApply},
            {"stop", SchemaChanges::kStop}});
    m.Enum("drop_table", rule.drop_table, {{"keep", DropTable::kKeep}, {"drop", DropTable::kDrop}});
    m.Finish();
    locations_.push_back({path, m.MarkOf("match"), m.MarkOf("target")});
  }

  // `exclude`: patterns of tables the rule leaves to later rules. One that no `match` pattern
  // can meet excludes nothing, and a `match` pattern inside an exclude can never match: both are
  // mistakes, as a shadowed rule is.
  void ReadExclude(MapReader& m, const std::string& path, TableRule& rule) {
    if (!m.StringList("exclude", rule.exclude, /*allow_single=*/true)) return;
    const std::string exclude_path = path + ".exclude";
    auto item_path = [&](size_t i) {
      return rule.exclude.size() == 1 ? exclude_path : fmt::format("{}[{}]", exclude_path, i);
    };
    for (size_t i = 0; i < rule.exclude.size(); ++i) {
      try {
        rule.exclude_patterns.push_back(TablePattern::Parse(rule.exclude[i]));
      } catch (const Error& e) {
        AddProblem(ctx_, m.MarkOf("exclude"), item_path(i), e.what());
      }
    }
    if (rule.exclude_patterns.size() != rule.exclude.size()) {
      rule.exclude_patterns.clear();
      return;
    }
    if (rule.patterns.size() != rule.match.size() || rule.patterns.empty()) return;
    for (size_t i = 0; i < rule.exclude_patterns.size(); ++i) {
      if (!OverlapsAny(rule.exclude_patterns[i], rule.patterns)) {
        AddProblem(ctx_, m.MarkOf("exclude"), item_path(i),
                   fmt::format("\"{}\" excludes nothing: no pattern of {}.match can match the "
                               "tables it names",
                               rule.exclude[i], path));
      }
    }
    for (size_t q = 0; q < rule.patterns.size(); ++q) {
      for (size_t i = 0; i < rule.exclude_patterns.size(); ++i) {
        if (!rule.patterns[q].IsCoveredBy(rule.exclude_patterns[i])) continue;
        AddProblem(ctx_, m.MarkOf("match"), MatchPath(path, rule, q),
                   fmt::format("\"{}\" can never match: the same rule excludes \"{}\"",
                               rule.match[q], rule.exclude[i]));
        break;
      }
    }
  }

  static bool OverlapsAny(const TablePattern& pattern, const std::vector<TablePattern>& others) {
    for (const TablePattern& other : others) {
      if (pattern.Overlaps(other)) return true;
    }
    return false;
  }
  static bool CoveredByAny(const TablePattern& pattern, const std::vector<TablePattern>& others) {
    for (const TablePattern& other : others) {
      if (pattern.IsCoveredBy(other)) return true;
    }
    return false;
  }

  static std::string MatchPath(const std::string& rule_path, const TableRule& rule, size_t i) {
    return rule.match.size() == 1 ? rule_path + ".match"
                                  : fmt::format("{}.match[{}]", rule_path, i);
  }

  void ReadTables(MapReader& root, Config& config) {
    std::optional<std::vector<YAML::Node>> items = root.List("tables", kRequired);
    if (!items) return;
    if (items->empty()) {
      AddProblem(ctx_, root.MarkOf("tables"), "tables",
                 "needs at least one rule (e.g. - match: shop.orders)");
      return;
    }
    size_t patterns = 0;
    for (size_t i = 0; i < items->size(); ++i) {
      TableRule rule;
      ReadRule((*items)[i], i, rule);
      patterns += rule.match.size();
      config.tables.push_back(std::move(rule));
      if (patterns > kMaxPatterns) {
        AddProblem(ctx_, root.MarkOf("tables"), "tables",
                   fmt::format("has more than {} patterns; use wildcards", kMaxPatterns));
        config.tables.clear();
        locations_.clear();
        return;
      }
    }
    CheckRuleOrder(config);
    CheckMergedTargets(config);
  }

  // First match wins, so a pattern that an earlier rule covers completely (and does not exclude
  // any of) can never match: that is always a mistake (usually a specific rule placed after a
  // general one). Two patterns of which neither contains the other (shop.* and *.orders) are
  // ambiguous to a reader, legitimate but worth a warning; a specific pattern before a general
  // one is not.
  void CheckRuleOrder(const Config& config) {
    for (size_t j = 0; j < config.tables.size(); ++j) {
      const TableRule& rule = config.tables[j];
      const RuleLocation& where = locations_[j];
      for (size_t q = 0; q < rule.patterns.size(); ++q) {
        const TablePattern& pattern = rule.patterns[q];
        bool shadowed = false;
        for (size_t i = 0; i < j && !shadowed; ++i) {
          const TableRule& earlier = config.tables[i];
          for (size_t p = 0; p < earlier.patterns.size(); ++p) {
            // Tables the earlier rule excludes pass on to this one.
            if (!pattern.IsCoveredBy(earlier.patterns[p]) ||
                OverlapsAny(pattern, earlier.exclude_patterns)) {
              continue;
            }
            AddProblem(ctx_, where.match, MatchPath(where.path, rule, q),
                       fmt::format("\"{}\" can never match: tables[{}] (line {}) matches \"{}\" "
                                   "and comes first; rules are tried in order and the first "
                                   "match wins, so put the more specific rule first",
                                   rule.match[q], i, earlier.line, earlier.match[p]));
            shadowed = true;
            break;
          }
        }
        for (size_t p = 0; p < q && !shadowed; ++p) {
          if (pattern.IsCoveredBy(rule.patterns[p])) {
            AddProblem(ctx_, where.match, MatchPath(where.path, rule, q),
                       fmt::format("\"{}\" is already covered by \"{}\" in the same rule",
                                   rule.match[q], rule.match[p]));
            shadowed = true;
          }
        }
        if (shadowed) continue;
        for (size_t i = 0; i < j; ++i) {
          const TableRule& earlier = config.tables[i];
          bool warned = false;
          for (size_t p = 0; p < earlier.patterns.size() && !warned; ++p) {
            if (!pattern.Overlaps(earlier.patterns[p])) continue;
            // A specific rule before a general one (shop.orders, then shop.*) is the documented
            // way to treat some tables differently: which rule wins is plain from the order.
            // Tables the earlier rule excludes are not shared either.
            if (earlier.patterns[p].IsCoveredBy(pattern) ||
                CoveredByAny(pattern, earlier.exclude_patterns)) {
              continue;
            }
            Warn(where.match, MatchPath(where.path, rule, q),
                 fmt::format("\"{}\" and \"{}\" of tables[{}] (line {}) can match the same "
                             "tables; those follow tables[{}], the first match",
                             rule.match[q], earlier.match[p], i, earlier.line, i));
            warned = true;
          }
        }
      }
    }
  }

  // Rules may merge many source tables into one target (a fixed target name), but then every rule
  // writing there must agree on how the table is shaped.
  void CheckMergedTargets(const Config& config) {
    for (size_t j = 0; j < config.tables.size(); ++j) {
      const TableRule& rule = config.tables[j];
      if (TargetHasPlaceholders(rule.target)) continue;
      QualifiedName target = ExpandTarget(rule.target, config.target.database, "", "");
      // Compared with the first rule writing there only, so each conflict is reported once.
      for (size_t i = 0; i < j; ++i) {
        const TableRule& earlier = config.tables[i];
        if (TargetHasPlaceholders(earlier.target) ||
            ExpandTarget(earlier.target, config.target.database, "", "") != target) {
          continue;
        }
        std::string difference;
        if (rule.mode != earlier.mode) {
          difference = fmt::format("mode {} instead of {}", TableModeName(rule.mode),
                                   TableModeName(earlier.mode));
        } else if (rule.meta_columns.version != earlier.meta_columns.version ||
                   (rule.mode == TableMode::kChangelog &&
                    rule.meta_columns.event_type != earlier.meta_columns.event_type) ||
                   (rule.mode == TableMode::kReplica &&
                    rule.meta_columns.is_deleted != earlier.meta_columns.is_deleted)) {
          difference = "different meta_columns";
        } else if (rule.key != earlier.key || rule.partition_by != earlier.partition_by) {
          difference = "a different key or partition_by";
        }
        if (!difference.empty()) {
          AddProblem(ctx_, locations_[j].target, locations_[j].path + ".target",
                     fmt::format("writes to {}.{} like tables[{}] (line {}) but with {}; rules "
                                 "that merge into one table must agree on mode, meta_columns, key "
                                 "and partition_by",
                                 target.database, target.table, i, earlier.line, difference));
        }
        break;
      }
    }
  }

  void ReadSnapshot(MapReader m, SnapshotConfig& s) {
    m.Bool("enabled", s.enabled);
    m.UInt("chunk_rows", s.chunk_rows, 1, 100000000);
    m.UInt("readers", s.readers, 1, 64);
    m.UInt("writers", s.writers, 1, 64);
    m.Size("memory_limit", s.memory_limit, 1 << 20, 64ULL << 30);
    m.Bool("keyless_single_chunk", s.keyless_single_chunk);
    m.Finish();
  }

  void ReadBatch(MapReader m, BatchConfig& b) {
    m.UInt("max_rows", b.max_rows, 1, 100000000);
    m.Size("max_bytes", b.max_bytes, 1 << 10, 16ULL << 30);
    m.Duration("max_delay", b.max_delay, milliseconds(1), hours(1));
    m.Duration("min_interval", b.min_interval, milliseconds(0), hours(1));
    m.UInt("part_rows", b.part_rows, 1, 100000000);
    batch_bytes_mark_ = m.MarkOf("max_bytes");
    m.Finish();
  }

  void ReadMemory(MapReader m, Config& config) {
    uint64_t& limit = config.memory.max_buffered_bytes;
    m.Size("max_buffered_bytes", limit, 1 << 20, 1ULL << 40);
    if (limit < config.batch.max_bytes) {
      if (m.Has("max_buffered_bytes")) {
        Problem(m, "max_buffered_bytes",
                fmt::format("must be at least batch.max_bytes ({}), or no batch could fill; got {}",
                            FormatSize(config.batch.max_bytes), FormatSize(limit)));
      } else {
        AddProblem(ctx_, batch_bytes_mark_, "batch.max_bytes",
                   fmt::format("must not exceed memory.max_buffered_bytes ({}), or no batch could "
                               "fill; got {}",
                               FormatSize(limit), FormatSize(config.batch.max_bytes)));
      }
    }
    m.Finish();
  }

  void ReadState(MapReader m, StateConfig& s) {
    m.Enum("store", s.store,
           {{"clickhouse", StateStore::kClickhouse}, {"file", StateStore::kFile}});
    NonEmpty(m, "path", s.path);
    NonEmpty(m, "table", s.table);
    m.Duration("checkpoint_interval", s.checkpoint_interval, milliseconds(100), hours(24));
    if (s.store == StateStore::kFile) {
      if (!m.Has("path")) Problem(m, "path", "required when state.store is file");
      if (m.Has("table")) Problem(m, "table", "only used when state.store is clickhouse");
    } else {
      if (m.Has("path")) Problem(m, "path", "only used when state.store is file");
      if (m.Has("table")) {
        try {
          ValidateTargetTemplate(s.table);
          if (TargetHasPlaceholders(s.table)) {
            Problem(m, "table", "must be a fixed name (no {db} or {table} placeholders)");
          }
        } catch (const Error& e) {
          Problem(m, "table", e.what());
        }
      }
    }
    s.path = ResolvePath(s.path);
    m.Finish();
  }

  void ReadHa(MapReader m, HaConfig& ha) {
    m.Enum(
        "lock", ha.lock,
        {{"none", HaLock::kNone}, {"source", HaLock::kSource}, {"zookeeper", HaLock::kZooKeeper}});
    m.Duration("lease", ha.lease, milliseconds(500), seconds(600));
    const bool zookeeper = ha.lock == HaLock::kZooKeeper;
    for (std::string_view key : {"hosts", "path"}) {
      if (!zookeeper && m.Has(key)) {
        Problem(m, key,
                fmt::format("only a ZooKeeper lock has {}, and {} is {}", key, m.PathOf("lock"),
                            HaLockName(ha.lock)));
      }
    }
    if (!zookeeper) {
      m.Finish();
      return;
    }
    if (!m.Has("hosts")) {
      Problem(m, "hosts",
              fmt::format("is required with {}: zookeeper (the ensemble's servers, e.g. hosts: "
                          "\"zk1:2181,zk2:2181,zk3:2181\")",
                          m.PathOf("lock")));
    } else if (m.String("hosts", ha.hosts)) {
      if (std::optional<std::string> bad = BadZooKeeperHosts(ha.hosts)) Problem(m, "hosts", *bad);
    }
    if (m.String("path", ha.path)) {
      if (std::optional<std::string> bad = BadZooKeeperPath(ha.path)) Problem(m, "path", *bad);
    }
    m.Finish();
  }

  // Why `hosts` is not a ZooKeeper connect string (host:port,...; a /chroot suffix belongs in
  // `path`); nullopt when it is one.
  static std::optional<std::string> BadZooKeeperHosts(const std::string& hosts) {
    if (hosts.empty()) return "must not be empty: host:port,host:port...";
    if (hosts.find('/') != std::string::npos) {
      return fmt::format("\"{}\" has a path: put it in ha.path, and only host:port,... here",
                         hosts);
    }
    size_t begin = 0;
    for (;;) {
      const size_t end = std::min(hosts.find(',', begin), hosts.size());
      const std::string_view server = std::string_view(hosts).substr(begin, end - begin);
      const size_t colon = server.rfind(':');
      const std::string_view port =
          colon == std::string_view::npos ? std::string_view() : server.substr(colon + 1);
      if (colon == std::string_view::npos || colon == 0 || port.empty() || port.size() > 5 ||
          port.find_first_not_of("0123456789") != std::string_view::npos) {
        return fmt::format("\"{}\" in \"{}\" is not host:port (e.g. zk1:2181)", server, hosts);
      }
      if (end == hosts.size()) return std::nullopt;
      begin = end + 1;
    }
  }

  // Why `path` is not an absolute ZooKeeper node path; nullopt when it is one.
  static std::optional<std::string> BadZooKeeperPath(const std::string& path) {
    if (path.empty() || path[0] != '/') {
      return fmt::format("\"{}\" must be an absolute node path, e.g. /rowbridge", path);
    }
    if (path.size() > 1 && path.back() == '/') {
      return fmt::format("\"{}\" must not end with /", path);
    }
    if (path.find("//") != std::string::npos) {
      return fmt::format("\"{}\" has an empty node name (//)", path);
    }
    return std::nullopt;
  }

  void ReadHttp(MapReader m, Config& config) {
    HttpConfig& h = config.http;
    m.Bool("enabled", h.enabled);
    m.Secret("token", h.token);
    if (m.String("listen", h.listen)) {
      try {
        const ListenAddress address = ParseListenAddress(h.listen);
        if (h.enabled && !IsLoopbackHost(address.host) && h.token.empty()) {
          Problem(m, "listen",
                  fmt::format("\"{}\" is reachable from other hosts, and /status shows the source "
                              "and target hosts, users and tables: set http.token (e.g. token: "
                              "${{ROWBRIDGE_HTTP_TOKEN}}), which every request must then send as "
                              "\"Authorization: Bearer <token>\", or listen on 127.0.0.1",
                              h.listen));
        }
      } catch (const Error& e) {
        Problem(m, "listen", e.what());
      }
    }
    MapReader health = m.Map("health");
    health.Duration("max_silence", h.health.max_silence, seconds(1), hours(24));
    Duration max_lag{};
    if (health.Duration("max_lag", max_lag, seconds(1), hours(24 * 30))) h.health.max_lag = max_lag;
    if (h.health.max_silence <= config.source.heartbeat_period) {
      if (health.Has("max_silence")) {
        Problem(health, "max_silence",
                fmt::format("must be longer than source.heartbeat_period ({}), or /healthz fails "
                            "whenever the source is idle; got {}",
                            FormatDuration(config.source.heartbeat_period),
                            FormatDuration(h.health.max_silence)));
      } else {
        AddProblem(ctx_, heartbeat_mark_, "source.heartbeat_period",
                   fmt::format("must be shorter than http.health.max_silence ({}), or /healthz "
                               "fails whenever the source is idle; got {}",
                               FormatDuration(h.health.max_silence),
                               FormatDuration(config.source.heartbeat_period)));
      }
    }
    health.Finish();
    m.Finish();
  }

  void ReadLog(MapReader m, LogConfig& l) {
    m.Enum("level", l.level,
           {{"trace", LogLevel::kTrace},
            {"debug", LogLevel::kDebug},
            {"info", LogLevel::kInfo},
            {"warn", LogLevel::kWarn},
            {"error", LogLevel::kError}});
    m.Enum("format", l.format, {{"text", LogFormat::kText}, {"json", LogFormat::kJson}});
    m.Finish();
  }

  ReadContext& ctx_;
  const LoadOptions& options_;
  std::string_view source_name_;
  std::vector<RuleLocation> locations_;  // one per rule, same order as Config::tables
  YAML::Mark heartbeat_mark_;            // source.heartbeat_period, for the health check
  YAML::Mark batch_bytes_mark_;          // batch.max_bytes, for the memory check
};

[[noreturn]] void FailYaml(std::string_view source_name, std::string_view text,
                           const YAML::Exception& e) {
  if (e.mark.is_null()) Fail(ErrorCode::kConfig, "{}: invalid YAML: {}", source_name, e.msg);
  // In flow style ({...} or [...]) braces end the value, so an unquoted ${VAR} breaks the syntax
  // with a message that does not say so.
  std::string hint;
  if (e.mark.pos >= 0 && static_cast<size_t>(e.mark.pos) <= text.size()) {
    size_t line_start = text.rfind('\n', e.mark.pos == 0 ? 0 : e.mark.pos - 1);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::string_view line = text.substr(line_start, text.find('\n', line_start) - line_start);
    if (line.find("${") != std::string_view::npos && line.find_first_of("{[") < line.find("${")) {
      hint = " (inside { } or [ ], put values with ${...} in quotes: \"${VAR}\")";
    }
  }
  Fail(ErrorCode::kConfig, "{}:{}:{}: invalid YAML: {}{}", source_name, e.mark.line + 1,
       e.mark.column + 1, e.msg, hint);
}

}  // namespace

Config ParseConfig(std::string_view yaml, std::string_view source_name,
                   const LoadOptions& options) {
  if (yaml.size() > kMaxConfigBytes) {
    Fail(ErrorCode::kConfig, "{}: is {} bytes; a config file may have at most {}", source_name,
         yaml.size(), FormatSize(kMaxConfigBytes));
  }
  const std::string text(yaml);
  YAML::Node root;
  try {
    // Not YAML::LoadAll: yaml-cpp 0.7 loops forever (allocating an empty document per turn) on a
    // stray ',' outside brackets, because its parser then never consumes the token. So count at
    // most two documents, then load the first.
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentCounter counter;
    int documents = 0;
    while (documents < 2 && parser.HandleNextDocument(counter)) ++documents;
    if (documents > 1) {
      Fail(ErrorCode::kConfig,
           "{}: holds more than one YAML document (a --- separator, or a stray character such as "
           "',' outside brackets); a config is a single document",
           source_name);
    }
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    FailYaml(source_name, yaml, e);
  }
  if (!root.IsDefined() || root.IsNull()) {
    Fail(ErrorCode::kConfig, "{}: is empty; a config needs at least source, target and tables",
         source_name);
  }
  if (!root.IsMap()) {
    Fail(ErrorCode::kConfig,
         "{}:{}:{}: the top level must be a mapping with the sections source, target, tables ...",
         source_name, root.Mark().line + 1, root.Mark().column + 1);
  }
  Problems problems;
  ReadContext ctx{problems, options.env, {}};
  Config config;
  try {
    config = Loader(ctx, options, source_name).Read(root);
  } catch (const YAML::Exception& e) {
    FailYaml(source_name, yaml, e);
  }
  if (!problems.empty()) problems.Throw(source_name);
  constexpr uint32_t kReadableByOthers = 0004;
  if (options.warnings != nullptr && (options.file_mode & kReadableByOthers) != 0 &&
      !ctx.literal_secrets.empty()) {
    options.warnings->push_back(fmt::format(
        "{}: every user of this machine can read it (mode {:04o}), and it holds {} as text; "
        "`chmod 600 {}`, or take the value from the environment (e.g. password: "
        "${{ROWBRIDGE_SOURCE_PASSWORD}})",
        source_name, options.file_mode & 07777, fmt::join(ctx.literal_secrets, ", "), source_name));
  }
  return config;
}

Config LoadConfigFile(const std::string& path, LoadOptions options) {
  std::ifstream file(path, std::ios::binary);
  if (!file) Fail(ErrorCode::kIo, "cannot open config file {}: {}", path, std::strerror(errno));
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) Fail(ErrorCode::kIo, "cannot read config file {}", path);
  if (options.base_directory.empty()) {
    options.base_directory =
        std::filesystem::absolute(std::filesystem::path(path)).parent_path().string();
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) options.file_mode = static_cast<uint32_t>(st.st_mode);
  return ParseConfig(text.str(), path, options);
}

}  // namespace rowbridge::config
