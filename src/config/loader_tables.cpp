// The config's `tables` rules (loader_impl.h): each rule (match, exclude, target, key, columns,
// meta columns, options), then the checks across rules: a rule an earlier one shadows, patterns
// that overlap, and rules merging tables into one target that disagree on its shape.
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "config/loader_impl.h"
#include "config/problems.h"
#include "config/target_template.h"
#include "config/units.h"

namespace rowbridge::config {

namespace {

// The checks between rules are quadratic; a config needing more uses wildcards.
constexpr size_t kMaxPatterns = 1000;

}  // namespace

void ConfigLoader::Columns(MapReader& m, std::string_view key, std::vector<std::string>& out) {
  if (!m.StringList(key, out)) return;
  for (const std::string& column : out) {
    if (column.size() > 64) {
      Problem(
          m, key,
          fmt::format("column name \"{}...\" is longer than 64 characters", column.substr(0, 16)));
    }
  }
}

void ConfigLoader::ValidateTimezone(MapReader& m, std::string_view key, const std::string& zone) {
  if (zone == "UTC") return;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && digit(zone[1]) && digit(zone[2]) &&
      zone[3] == ':' && digit(zone[4]) && digit(zone[5])) {
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

void ConfigLoader::ReadMetaColumns(MapReader m, TableRule& rule, const std::string& rule_path) {
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
  std::vector<std::pair<std::string_view, const std::string*>> used = {{"version", &meta.version}};
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

void ConfigLoader::ReadRule(const YAML::Node& node, size_t index, TableRule& rule) {
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
      Problem(
          m, "key",
          fmt::format("key column \"{}\" is excluded by {}", column, m.PathOf("exclude_columns")));
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

void ConfigLoader::ReadExclude(MapReader& m, const std::string& path, TableRule& rule) {
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
                 fmt::format("\"{}\" can never match: the same rule excludes \"{}\"", rule.match[q],
                             rule.exclude[i]));
      break;
    }
  }
}

bool ConfigLoader::OverlapsAny(const TablePattern& pattern,
                               const std::vector<TablePattern>& others) {
  for (const TablePattern& other : others) {
    if (pattern.Overlaps(other)) return true;
  }
  return false;
}

bool ConfigLoader::CoveredByAny(const TablePattern& pattern,
                                const std::vector<TablePattern>& others) {
  for (const TablePattern& other : others) {
    if (pattern.IsCoveredBy(other)) return true;
  }
  return false;
}

std::string ConfigLoader::MatchPath(const std::string& rule_path, const TableRule& rule, size_t i) {
  return rule.match.size() == 1 ? rule_path + ".match" : fmt::format("{}.match[{}]", rule_path, i);
}

void ConfigLoader::ReadTables(MapReader& root, Config& config) {
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

void ConfigLoader::CheckRuleOrder(const Config& config) {
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

void ConfigLoader::CheckMergedTargets(const Config& config) {
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

}  // namespace rowbridge::config
