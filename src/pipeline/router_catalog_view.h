// RouterCatalogView: the stream's catalog (TableRouter, its TableResolver and RouterContext) as
// the schema-change planner sees it (schema_changes/catalog_view.h). TargetExists may ask
// ClickHouse; everything else is answered from memory.
#pragma once

#include "pipeline/table_router.h"
#include "schema_changes/catalog_view.h"

namespace rowbridge::pipeline {

class RouterCatalogView : public schema_changes::CatalogView {
 public:
  explicit RouterCatalogView(TableRouter& router) : router_(router) {}

  const config::Config& config() const override { return *ctx().config; }
  int Match(const tables::SourceTableName& name) const override {
    return ctx().resolver->Match(name);
  }
  std::string TargetLabel(const tables::SourceTableName& name, int rule) const override {
    return ctx().resolver->TargetLabel(name, rule);
  }
  bool TargetExists(const tables::SourceTableName& name, int rule) const override {
    return ctx().resolver->TargetExists(name, rule);
  }
  bool Created(const std::string& label) const override { return ctx().resolver->Created(label); }
  std::optional<schema_changes::StreamedFacts> Streamed(
      const tables::SourceTableName& name) const override;
  std::optional<tables::SourceTableName> OtherWriter(
      const tables::SourceTableName& writer,
      const std::set<tables::SourceTableName>& except) const override;
  bool BeforeStart(const tables::SourceTableName& name,
                   const schema::BinlogPosition& position) const override {
    return router_.BeforeStart(name, position);
  }
  bool NameInCopy(const tables::SourceTableName& name,
                  const schema::BinlogPosition& position) const override {
    return router_.NameInCopy(name, position);
  }
  const schema_changes::TargetRoutes& routes() const override { return ctx().target_routes; }
  const schema::SchemaHistory& history() const override { return *ctx().history; }

 private:
  const RouterContext& ctx() const { return router_.context(); }

  TableRouter& router_;
};

}  // namespace rowbridge::pipeline
