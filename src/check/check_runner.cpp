#include "check/check_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "check/check_tables.h"
#include "check/table_check.h"
#include "clickhouse/client.h"
#include "common/error.h"
#include "endpoints/connection_options.h"
#include "mysql/connection.h"
#include "tables/source_schema.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::check {

namespace {

void PrintResult(const TableCheckResult& r, std::FILE* out) {
  std::string verdict;
  if (r.equal()) {
    verdict = "equal";
  } else {
    std::vector<std::string> parts;
    if (r.source_rows != r.target_rows)
      parts.push_back(fmt::format("row counts differ by {}",
                                  static_cast<int64_t>(r.target_rows - r.source_rows)));
    if (r.missing) parts.push_back(fmt::format("{} missing in target", r.missing));
    if (r.extra) parts.push_back(fmt::format("{} extra in target", r.extra));
    if (r.changed) parts.push_back(fmt::format("{} changed", r.changed));
    if (r.duplicates)
      parts.push_back(fmt::format("{} keys in several source tables", r.duplicates));
    if (!r.problems.empty())
      parts.push_back(fmt::format("{} columns not comparable", r.problems.size()));
    verdict = fmt::format("DIFFERENT: {}", fmt::join(parts, ", "));
  }
  std::fprintf(out, "%s -> %s: source %llu rows, target %llu rows, %llu key ranges: %s\n",
               r.sources.c_str(), r.target.c_str(), static_cast<unsigned long long>(r.source_rows),
               static_cast<unsigned long long>(r.target_rows),
               static_cast<unsigned long long>(r.ranges), verdict.c_str());
  for (const std::string& p : r.problems) std::fprintf(out, "  not compared: %s\n", p.c_str());
  for (const Difference& d : r.listed) {
    std::fprintf(out, "  %-18s %s%s%s\n", (std::string(DifferenceKindName(d.kind)) + ":").c_str(),
                 d.key.c_str(), d.detail.empty() ? "" : ": ", d.detail.c_str());
  }
  const uint64_t total = r.missing + r.extra + r.changed + r.duplicates;
  if (total > r.listed.size())
    std::fprintf(out, "  ... and %llu more differing keys\n",
                 static_cast<unsigned long long>(total - r.listed.size()));
}

}  // namespace

RetryPolicy CheckRetryPolicy() {
  using namespace std::chrono_literals;
  return {.initial = 1s, .max = 10s, .max_elapsed = 2min};
}

CheckOutcome RunCheck(const config::Config& config, const CheckOptions& options, std::FILE* out) {
  std::unique_ptr<mysql::Connection> source;
  std::unique_ptr<clickhouse::Client> target;
  // The catalog names each table's rule and target; nothing is created (dry run), and the target
  // connection it holds is never opened: check reads the targets on its own.
  tables::TargetCatalog catalog(endpoints::TargetClientOptions(config.target));
  tables::ResolverOptions resolver_options;
  resolver_options.dry_run = true;
  tables::TableResolver resolver(config, catalog, std::move(resolver_options));
  std::map<std::string, TargetGroup> targets;
  RetryOptions retry;
  retry.policy = options.retry;
  try {
    source = Retry("check: connecting to the source", retry,
                   [&] { return ConnectCheckSource(config.source, "rowbridge check"); });
    target = Retry("check: connecting to ClickHouse", retry,
                   [&] { return ConnectCheckTarget(config.target, "rowbridge check"); });
    bool first_listing = true;
    const auto source_tables = Retry("check: listing the source tables", retry, [&] {
      if (!first_listing) source = ConnectCheckSource(config.source, "rowbridge check");
      first_listing = false;
      return tables::ListSourceTables(*source);
    });
    targets = GroupByTarget(resolver, source_tables, options.only_tables);
  } catch (const Error& e) {
    std::fprintf(out, "check: error: %s\n", e.what());
    return CheckOutcome::kError;
  }
  if (targets.empty()) {
    std::fprintf(out, "check: error: no source table matches a rule of the configuration\n");
    return CheckOutcome::kError;
  }
  size_t equal = 0, different = 0, errors = 0;
  for (const auto& target_entry : targets) {
    // Named references, not structured bindings: clang 14 cannot capture those in a lambda.
    const std::string& key = target_entry.first;
    const TargetGroup& group = target_entry.second;
    try {
      bool first = true;
      const TableCheckResult result = Retry("check " + key, retry, [&] {
        if (!first) {
          // The failure may have left either connection mid-answer: both start over.
          source = ConnectCheckSource(config.source, "rowbridge check");
          target = ConnectCheckTarget(config.target, "rowbridge check");
        }
        first = false;
        if (!target->connected()) target->Reconnect();
        TableCheckSpec spec;
        for (const tables::SourceTableName& table : group.sources)
          spec.sources.push_back(LoadSourceTable(*source, resolver, table, group.rule));
        spec.target = group.target;
        spec.settings = resolver.PlanOptionsFor(spec.sources.front(), {}).converter;
        spec.chunk_rows = std::max<uint64_t>(options.chunk_rows, 1);
        spec.max_listed = options.max_listed;
        return CheckTable(spec, *source, *target);
      });
      PrintResult(result, out);
      (result.equal() ? equal : different)++;
      if (!result.equal() && options.different != nullptr)
        options.different->push_back(group.sources.front().ToString());
    } catch (const Error& e) {
      ++errors;
      std::fprintf(out, "%s: error: %s\n", key.c_str(), e.what());
      // A broken source connection cannot run the next table's queries; start a new one.
      try {
        source = ConnectCheckSource(config.source, "rowbridge check");
      } catch (const Error& again) {
        std::fprintf(out, "check: error: %s\n", again.what());
        return CheckOutcome::kError;
      }
    }
    std::fflush(out);
  }
  std::fprintf(out, "check: %zu target tables: %zu equal, %zu different, %zu errors\n",
               targets.size(), equal, different, errors);
  if (errors > 0) return CheckOutcome::kError;
  return different > 0 ? CheckOutcome::kDifferent : CheckOutcome::kEqual;
}

}  // namespace rowbridge::check
