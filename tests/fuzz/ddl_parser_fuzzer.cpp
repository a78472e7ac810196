// libFuzzer target: arbitrary text through the DDL lexer, parser, the statement classifier (which
// tables a QUERY event may change: the stream and the copy's binlog window use it) and the schema
// catalog. The
// input is split at NUL bytes into statements applied in order to one SchemaHistory that starts
// with a few known tables (so ALTERs have something to change); the first byte picks the lexer
// modes. After the statements the history must survive a JSON round trip and a prune.
// rowbridge::Error is the expected outcome for garbage; anything else (a crash, a sanitizer
// report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"
#include "schema/ddl_describe.h"
#include "schema/ddl_parser.h"
#include "schema/schema_history.h"
#include "tables/statement_tables.h"

namespace {

using namespace rowbridge::schema;

void Seed(SchemaHistory& history) {
  ParseOptions options;
  options.default_database = "d";
  const StatementContext context{45};
  history.ApplyDdl(
      "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), e ENUM('a','b'), txt TEXT, "
      "d DECIMAL(10,2), ts TIMESTAMP(3) NULL)",
      options, context, {"bin.000001", 1});
  history.ApplyDdl("CREATE TABLE u LIKE t", options, context, {"bin.000001", 2});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  ParseOptions options;
  options.default_database = "d";
  options.ansi_quotes = (data[0] & 1) != 0;
  options.no_backslash_escapes = (data[0] & 2) != 0;
  options.real_as_float = (data[0] & 4) != 0;
  CatalogOptions catalog_options;
  catalog_options.flavor = (data[0] & 8) != 0 ? ServerFlavor::kMariadb : ServerFlavor::kMysql;
  catalog_options.lower_case_table_names = (data[0] & 16) != 0;
  SchemaHistory history(catalog_options);
  Seed(history);
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  uint64_t offset = 100;
  size_t start = 0;
  while (start <= input.size()) {
    size_t end = input.find('\0', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view sql = input.substr(start, end - start);
    try {
      const rowbridge::tables::StatementTables st =
          rowbridge::tables::ClassifyStatement(sql, "d", options.lex());
      if (st.dml && !st.changes) __builtin_trap();  // statement DML always changes rows unseen
    } catch (const rowbridge::Error&) {
    }
    try {
      DescribeStatement(ParseDdl(sql, options));
      history.ApplyDdl(sql, options, StatementContext{8}, {"bin.000001", offset});
    } catch (const rowbridge::Error&) {
    }
    offset += 100;
    start = end + 1;
  }
  try {
    const SchemaHistory copy = SchemaHistory::FromJson(history.ToJson(), "fuzz");
    if (copy.ToJson() != history.ToJson()) __builtin_trap();
  } catch (const rowbridge::Error&) {
    __builtin_trap();  // our own output must always load
  }
  history.Prune({"bin.000001", offset / 2});
  return 0;
}
