// FakeCatalog: a catalog of replicated tables described by data, for the schema-change decision
// tests (decision_corpus_test.cpp says the format). It answers the planner's questions
// (schema_changes::CatalogView) and carries its decisions out in memory, as the pipeline does
// when every server says yes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "config/config.h"
#include "config/table_matcher.h"
#include "schema/schema_history.h"
#include "schema_changes/catalog_view.h"
#include "schema_changes/decision.h"

namespace rowbridge::schema_changes {

class FakeCatalog : public CatalogView {
 public:
  static schema::BinlogPosition PositionOf(size_t statement) {
    return {"binlog.000001", statement * 100};
  }

  void Configure(const std::string& yaml);
  void ApplyHistory(const std::string& sql, const std::string& database, size_t statement);
  void AddTarget(const std::string& label, bool changelog, bool created);
  void AddTable(const std::string& name, const std::string& target, bool stopped, bool in_copy);
  void AddCopy(const std::string& name, const schema::BinlogPosition& until);
  void AddRename(const std::string& from, const std::string& to, const schema::BinlogPosition& at);
  void AddAlias(const std::string& table, const std::string& target,
                const schema::BinlogPosition& at,
                const std::optional<schema::BinlogPosition>& until);
  // The statement's changes: for each, the tables met and the decision, carried out.
  std::string Decide(const std::string& sql, const std::string& database, size_t statement);
  std::string Describe() const;

  // CatalogView.
  const config::Config& config() const override { return config_; }
  int Match(const tables::SourceTableName& name) const override;
  std::string TargetLabel(const tables::SourceTableName& name, int rule) const override;
  bool TargetExists(const tables::SourceTableName& name, int rule) const override;
  bool Created(const std::string& label) const override;
  std::optional<StreamedFacts> Streamed(const tables::SourceTableName& name) const override;
  std::optional<tables::SourceTableName> OtherWriter(
      const tables::SourceTableName& writer,
      const std::set<tables::SourceTableName>& except) const override;
  bool BeforeStart(const tables::SourceTableName& name,
                   const schema::BinlogPosition& position) const override;
  bool NameInCopy(const tables::SourceTableName& name,
                  const schema::BinlogPosition& position) const override;
  const TargetRoutes& routes() const override { return routes_; }
  const schema::SchemaHistory& history() const override { return history_; }

 private:
  struct Target {
    bool changelog = false;
    bool created = true;
  };
  struct Table {
    int rule = -1;
    bool stopped = false;
    bool in_copy = false;
    std::string target;
    std::optional<tables::SourceTableSchema> known;
  };

  // A table met at `at` (rule `rule`): where its rows go, its columns there.
  void MeetTable(const tables::SourceTableName& name, int rule, const schema::BinlogPosition& at,
                 const std::string& follow_target);
  // Carries `decision` out; false when a step ends it (a FailRun).
  bool CarryOut(const Decision& decision);
  void CarryOut(const Step& step);

  config::Config config_;
  mutable std::optional<config::TableMatcher> matcher_;  // caches by name
  schema::SchemaHistory history_;
  std::map<std::string, Target> targets_;
  std::map<tables::SourceTableName, Table> tables_;
  std::map<tables::SourceTableName, schema::BinlogPosition> copies_;
  TargetRoutes routes_;
};

}  // namespace rowbridge::schema_changes
