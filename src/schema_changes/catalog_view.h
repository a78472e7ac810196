// CatalogView: what the planner may know of the replicated tables when it decides a schema
// change: the rules, the tables the stream has met (their target, whether they stopped, their
// columns), the target tables (who created them, their mode), the copies that hold tables until a
// later position, the target renames and aliases in flight (TargetRoutes) and the schema history.
//
// Every question is a const query; none changes anything. The pipeline answers them from its
// catalog (pipeline/router_catalog_view.h: TargetExists may ask ClickHouse, which the planner does
// only when the answer matters); the decision tests answer them from a few lines of data.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "config/config.h"
#include "mapping/conversion_plan.h"
#include "schema/schema_history.h"
#include "schema_changes/target_routes.h"
#include "tables/source_schema.h"

namespace rowbridge::schema_changes {

// The target table a met table writes into.
struct TargetFacts {
  mapping::TableMode mode = mapping::TableMode::kReplica;
  std::string version_column;
  std::string removal_column;
};

// A table the stream has met in this session.
struct StreamedFacts {
  int rule = -1;
  bool stopped = false;
  std::string target;  // the label of the target it writes into; "" for none
  TargetFacts target_facts;
  // Its columns as the stream knows them; nullopt when unknown.
  std::optional<tables::SourceTableSchema> known;
  // Its schema changes are carried to its target (rule and ownership of the target).
  bool applies_schema_changes = false;
};

class CatalogView {
 public:
  virtual ~CatalogView() = default;

  virtual const config::Config& config() const = 0;
  // The index of the first rule matching `name` (config::TableMatcher::kNoRule for none).
  virtual int Match(const tables::SourceTableName& name) const = 0;
  // The rules' target of `name` under `rule`, as "db.table".
  virtual std::string TargetLabel(const tables::SourceTableName& name, int rule) const = 0;
  // Whether that target is resolved or exists in ClickHouse.
  virtual bool TargetExists(const tables::SourceTableName& name, int rule) const = 0;
  // Whether rowbridge created the target "db.table".
  virtual bool Created(const std::string& label) const = 0;

  // The table under `name` the stream has met; nullopt when it has not.
  virtual std::optional<StreamedFacts> Streamed(const tables::SourceTableName& name) const = 0;
  // Another table the stream has met, neither `writer` nor in `except`, that writes into the
  // target `writer` writes into: its name, or nullopt.
  virtual std::optional<tables::SourceTableName> OtherWriter(
      const tables::SourceTableName& writer,
      const std::set<tables::SourceTableName>& except) const = 0;
  // Whether `name`'s changes at `position` are still in its own copy (a table copied after the
  // stream began, whose stream starts later).
  virtual bool BeforeStart(const tables::SourceTableName& name,
                           const schema::BinlogPosition& position) const = 0;
  // Whether the table met under `name` has its changes at `position` in a copy: its own
  // (BeforeStart) or the one that replaced its target.
  virtual bool NameInCopy(const tables::SourceTableName& name,
                          const schema::BinlogPosition& position) const = 0;

  virtual const TargetRoutes& routes() const = 0;
  virtual const schema::SchemaHistory& history() const = 0;
};

}  // namespace rowbridge::schema_changes
