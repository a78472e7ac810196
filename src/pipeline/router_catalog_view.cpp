#include "pipeline/router_catalog_view.h"

namespace rowbridge::pipeline {

std::optional<schema_changes::StreamedFacts> RouterCatalogView::Streamed(
    const tables::SourceTableName& name) const {
  const StreamedTable* table = router_.FindTable(name);
  if (table == nullptr) return std::nullopt;
  schema_changes::StreamedFacts facts;
  facts.rule = table->rule_index;
  facts.stopped = table->stopped;
  if (table->target != nullptr) {
    facts.target = table->target->label;
    facts.target_facts = {table->target->mode, table->target->version_column,
                          table->target->removal_column};
  }
  facts.known = table->known;
  facts.applies_schema_changes = ctx().resolver->AppliesSchemaChanges(*table);
  return facts;
}

std::optional<tables::SourceTableName> RouterCatalogView::OtherWriter(
    const tables::SourceTableName& writer, const std::set<tables::SourceTableName>& except) const {
  const StreamedTable* table = router_.FindTable(writer);
  if (table == nullptr || table->target == nullptr) return std::nullopt;
  for (const auto& [name, other] : router_.tables()) {
    if (name == writer || except.count(name) != 0) continue;
    if (other->target == table->target) return name;
  }
  return std::nullopt;
}

}  // namespace rowbridge::pipeline
