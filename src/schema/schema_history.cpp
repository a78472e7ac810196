#include "schema/schema_history.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "schema/sql_lexer.h"

namespace rowbridge::schema {

using binlog::ColumnDef;
using binlog::ColumnType;
using Json = nlohmann::ordered_json;

namespace {

std::optional<uint64_t> FileNumber(std::string_view file) {
  const size_t dot = file.rfind('.');
  if (dot == std::string_view::npos || dot + 1 >= file.size()) return std::nullopt;
  uint64_t n = 0;
  const char* begin = file.data() + dot + 1;
  const char* end = file.data() + file.size();
  auto [ptr, ec] = std::from_chars(begin, end, n);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return n;
}

const char* StateName(TableState state) {
  switch (state) {
    case TableState::kAbsent:
      return "absent";
    case TableState::kKnown:
      return "known";
    case TableState::kUnknown:
      return "unknown";
  }
  return "?";
}

// Names and labels come from statements in the client's character set and need not be UTF-8,
// which JSON strings must be: such a string is stored as {"hex": "..."} instead, losslessly.
bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t extra = 0;
    uint32_t min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      extra = 1;
      min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
      min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3;
      min = 0x10000;
    } else {
      return false;
    }
    if (s.size() - i <= extra) return false;
    uint32_t code = c & (0x3f >> extra);
    for (size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      code = (code << 6) | (cc & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return false;
    i += extra + 1;
  }
  return true;
}

Json Text(const std::string& s) {
  if (IsUtf8(s)) return Json(s);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  Json j;
  j["hex"] = hex;
  return j;
}

std::string TextFrom(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  const std::string hex = j.at("hex").get<std::string>();
  if (hex.size() % 2 != 0) throw nlohmann::json::other_error::create(501, "odd hex length", &j);
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    auto nibble = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      throw nlohmann::json::other_error::create(501, "bad hex digit", &j);
    };
    out.push_back(static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1])));
  }
  return out;
}

std::vector<std::string> TextsFrom(const nlohmann::json& j) {
  std::vector<std::string> out;
  for (const auto& item : j) out.push_back(TextFrom(item));
  return out;
}

Json Texts(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const std::string& s : items) out.push_back(Text(s));
  return out;
}

Json ColumnToJson(const ColumnDef& c) {
  Json j;
  j["n"] = Text(c.name);
  j["t"] = static_cast<int>(c.type);
  if (c.meta) j["m"] = c.meta;
  if (c.type == ColumnType::kNewDecimal) {
    j["p"] = c.precision;
    j["s"] = c.scale;
  }
  if (c.is_unsigned) j["u"] = 1;
  if (!c.nullable) j["nn"] = 1;
  j["c"] = c.charset;
  if (!c.enum_values.empty()) j["e"] = Texts(c.enum_values);
  if (!c.set_values.empty()) j["set"] = Texts(c.set_values);
  if (!c.visible) j["inv"] = 1;
  if (c.vector_dimensions) j["vd"] = c.vector_dimensions;
  if (c.geometry_type) j["g"] = c.geometry_type;
  // Absent in checkpoints written before defaults were known: the default stays unknown.
  if (c.default_known) j["d"] = c.default_value ? Json(Text(*c.default_value)) : Json(nullptr);
  return j;
}

ColumnDef ColumnFromJson(const nlohmann::json& j) {
  ColumnDef c;
  c.name = TextFrom(j.at("n"));
  c.type = static_cast<ColumnType>(j.at("t").get<uint8_t>());
  c.wire_type =
      c.type == ColumnType::kEnum || c.type == ColumnType::kSet ? ColumnType::kString : c.type;
  c.meta = j.value("m", 0u);
  c.precision = j.value("p", uint8_t{0});
  c.scale = j.value("s", uint8_t{0});
  c.signedness_known = true;
  c.is_unsigned = j.value("u", 0) != 0;
  c.nullable = j.value("nn", 0) == 0;
  c.charset = j.at("c").get<uint32_t>();
  if (j.contains("e")) c.enum_values = TextsFrom(j.at("e"));
  if (j.contains("set")) c.set_values = TextsFrom(j.at("set"));
  c.visible = j.value("inv", 0) == 0;
  c.vector_dimensions = j.value("vd", 0u);
  c.geometry_type = j.value("g", 0u);
  if (j.contains("d")) {
    c.default_known = true;
    if (!j.at("d").is_null()) c.default_value = TextFrom(j.at("d"));
  }
  return c;
}

}  // namespace

BinlogPosition BinlogPosition::Parse(std::string_view text, std::string_view origin) {
  const size_t colon = text.rfind(':');
  BinlogPosition p;
  if (colon == std::string_view::npos) {
    Fail(ErrorCode::kCorruption, "{}: \"{}\" is not a binlog position", origin, text);
  }
  p.file = std::string(text.substr(0, colon));
  const std::string_view number = text.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), p.offset);
  if (ec != std::errc() || ptr != number.data() + number.size() || p.file.empty()) {
    Fail(ErrorCode::kCorruption, "{}: \"{}\" is not a binlog position", origin, text);
  }
  return p;
}

std::string BinlogPosition::ToString() const {
  return fmt::format("{}:{}", file, offset);
}

bool BinlogPosition::operator<(const BinlogPosition& other) const {
  const std::optional<uint64_t> a = FileNumber(file);
  const std::optional<uint64_t> b = FileNumber(other.file);
  if (a && b) {
    if (*a != *b) return *a < *b;
  } else if (file != other.file) {
    return file < other.file;
  }
  return offset < other.offset;
}

void SchemaHistory::Record(const TableRef& table, const BinlogPosition& position, TableState state,
                           const TableSchema* schema) {
  std::vector<SchemaVersion>& versions = versions_[table];
  if (versions.empty() && state == TableState::kAbsent) {
    versions_.erase(table);  // nothing known before; "absent" adds nothing
    return;
  }
  SchemaVersion v;
  v.position = position;
  v.state = state;
  if (schema != nullptr) v.schema = *schema;
  if (state != TableState::kKnown) v.schema.name = table;
  if (!versions.empty() && versions.back().position == position) {
    versions.back() = std::move(v);  // one statement touching a name twice: the last wins
  } else {
    versions.push_back(std::move(v));
  }
}

void SchemaHistory::Seed(const TableSchema& schema, const BinlogPosition& position) {
  catalog_.Put(schema);
  const TableSchema* stored = catalog_.Find(schema.name);
  Record(stored->name, position, TableState::kKnown, stored);
}

void SchemaHistory::SetDatabaseCollation(const std::string& database, uint32_t collation) {
  catalog_.SetDatabaseCollation(database, collation);
}

std::vector<TableChange> SchemaHistory::Apply(const DdlStatement& statement,
                                              const StatementContext& context,
                                              const BinlogPosition& position) {
  std::vector<TableChange> changes;
  try {
    changes = catalog_.Apply(statement, context);
  } catch (const Error& e) {
    throw e.WithMessage(fmt::format("{} at {}", e.what(), position.ToString()));
  }
  for (const TableChange& change : changes) {
    const TableState state = change.schema ? TableState::kKnown : TableState::kUnknown;
    const TableSchema* schema = change.schema ? &*change.schema : nullptr;
    switch (change.kind) {
      case TableChange::Kind::kCreated:
      case TableChange::Kind::kAltered:
        Record(change.table, position, state, schema);
        break;
      case TableChange::Kind::kRenamed:
        Record(*change.from, position, TableState::kAbsent, nullptr);
        Record(change.table, position, state, schema);
        break;
      case TableChange::Kind::kDropped:
        Record(change.table, position, TableState::kAbsent, nullptr);
        break;
      case TableChange::Kind::kTruncated:
      case TableChange::Kind::kRowsChanged:
        break;
    }
  }
  last_applied_ = position;
  return changes;
}

DdlOutcome SchemaHistory::ApplyDdl(std::string_view sql, const ParseOptions& parse,
                                   const StatementContext& context,
                                   const BinlogPosition& position) {
  DdlOutcome outcome;
  try {
    outcome.statement = ParseDdl(sql, parse);
  } catch (const Error& e) {
    throw e.WithMessage(fmt::format("{} at {}", e.what(), position.ToString()));
  }
  if (last_applied_ && position <= *last_applied_) {
    outcome.replayed = true;
    return outcome;
  }
  outcome.changes = Apply(outcome.statement, context, position);
  return outcome;
}

const std::vector<SchemaVersion>* SchemaHistory::Versions(const TableRef& table) const {
  const TableRef key = catalog_.options().lower_case_table_names
                           ? TableRef{ToLowerAscii(table.database), ToLowerAscii(table.table)}
                           : table;
  auto it = versions_.find(key);
  return it == versions_.end() ? nullptr : &it->second;
}

const SchemaVersion* SchemaHistory::SchemaAt(const TableRef& table,
                                             const BinlogPosition& position) const {
  const std::vector<SchemaVersion>* versions = Versions(table);
  if (versions == nullptr) return nullptr;
  const SchemaVersion* found = nullptr;
  for (const SchemaVersion& v : *versions) {
    if (position < v.position) break;
    found = &v;
  }
  return found;
}

const SchemaVersion* SchemaHistory::Latest(const TableRef& table) const {
  const std::vector<SchemaVersion>* versions = Versions(table);
  return versions == nullptr || versions->empty() ? nullptr : &versions->back();
}

void SchemaHistory::Prune(const BinlogPosition& checkpoint) {
  for (auto it = versions_.begin(); it != versions_.end();) {
    std::vector<SchemaVersion>& versions = it->second;
    size_t valid = 0;
    bool any = false;
    for (size_t i = 0; i < versions.size(); ++i) {
      if (checkpoint < versions[i].position) break;
      valid = i;
      any = true;
    }
    if (any) versions.erase(versions.begin(), versions.begin() + static_cast<ptrdiff_t>(valid));
    if (versions.size() == 1 && versions.front().state == TableState::kAbsent) {
      it = versions_.erase(it);
    } else {
      ++it;
    }
  }
}

std::string SchemaHistory::ToJson() const {
  Json j;
  j["version"] = 1;
  const CatalogOptions& o = catalog_.options();
  j["flavor"] = o.flavor == ServerFlavor::kMariadb ? "mariadb" : "mysql";
  j["lower_case_table_names"] = o.lower_case_table_names;
  j["explicit_defaults_for_timestamp"] = o.explicit_defaults_for_timestamp;
  j["last_applied"] = last_applied_ ? Json(last_applied_->ToString()) : Json(nullptr);
  Json databases = Json::array();
  for (const auto& [db, collation] : catalog_.DatabaseCollations()) {
    databases.push_back(Json::array({Text(db), collation}));
  }
  j["databases"] = std::move(databases);
  Json tables = Json::array();
  for (const auto& [table, versions] : versions_) {
    Json t;
    t["db"] = Text(table.database);
    t["table"] = Text(table.table);
    Json vs = Json::array();
    for (const SchemaVersion& v : versions) {
      Json jv;
      jv["at"] = v.position.ToString();
      jv["state"] = StateName(v.state);
      if (v.state == TableState::kKnown) {
        jv["collation"] = v.schema.default_collation;
        jv["pk"] = v.schema.primary_key;
        Json columns = Json::array();
        for (const ColumnDef& c : v.schema.columns) columns.push_back(ColumnToJson(c));
        jv["columns"] = std::move(columns);
      }
      vs.push_back(std::move(jv));
    }
    t["versions"] = std::move(vs);
    tables.push_back(std::move(t));
  }
  j["tables"] = std::move(tables);
  return j.dump();
}

SchemaHistory SchemaHistory::FromJson(std::string_view text, std::string_view origin) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.at("version").get<int>() != 1) {
      Fail(ErrorCode::kCorruption, "{}: unsupported schema history version {}", origin,
           j.at("version").dump());
    }
    CatalogOptions options;
    const std::string flavor = j.at("flavor").get<std::string>();
    if (flavor != "mysql" && flavor != "mariadb") {
      Fail(ErrorCode::kCorruption, "{}: unknown flavor \"{}\"", origin, flavor);
    }
    options.flavor = flavor == "mariadb" ? ServerFlavor::kMariadb : ServerFlavor::kMysql;
    options.lower_case_table_names = j.at("lower_case_table_names").get<bool>();
    options.explicit_defaults_for_timestamp = j.at("explicit_defaults_for_timestamp").get<bool>();
    SchemaHistory h(options);
    if (!j.at("last_applied").is_null()) {
      h.last_applied_ = BinlogPosition::Parse(j.at("last_applied").get<std::string>(), origin);
    }
    for (const auto& db : j.at("databases")) {
      h.catalog_.SetDatabaseCollation(TextFrom(db.at(0)), db.at(1).get<uint32_t>());
    }
    for (const auto& t : j.at("tables")) {
      const TableRef table{TextFrom(t.at("db")), TextFrom(t.at("table"))};
      std::vector<SchemaVersion>& versions = h.versions_[table];
      for (const auto& jv : t.at("versions")) {
        SchemaVersion v;
        v.position = BinlogPosition::Parse(jv.at("at").get<std::string>(), origin);
        if (!versions.empty() && v.position < versions.back().position) {
          Fail(ErrorCode::kCorruption, "{}: versions of {}.{} are out of order", origin,
               table.database, table.table);
        }
        const std::string state = jv.at("state").get<std::string>();
        v.schema.name = table;
        if (state == "known") {
          v.state = TableState::kKnown;
          v.schema.default_collation = jv.at("collation").get<uint32_t>();
          for (const auto& c : jv.at("columns")) v.schema.columns.push_back(ColumnFromJson(c));
          v.schema.primary_key = jv.at("pk").get<std::vector<uint32_t>>();
          for (uint32_t i : v.schema.primary_key) {
            if (i >= v.schema.columns.size()) {
              Fail(ErrorCode::kCorruption, "{}: primary key of {}.{} names column {} of {}", origin,
                   table.database, table.table, i, v.schema.columns.size());
            }
            v.schema.columns[i].is_primary_key = true;
          }
        } else if (state == "unknown") {
          v.state = TableState::kUnknown;
        } else if (state == "absent") {
          v.state = TableState::kAbsent;
        } else {
          Fail(ErrorCode::kCorruption, "{}: unknown table state \"{}\"", origin, state);
        }
        versions.push_back(std::move(v));
      }
      if (versions.empty()) {
        Fail(ErrorCode::kCorruption, "{}: {}.{} has no versions", origin, table.database,
             table.table);
      }
      const SchemaVersion& last = versions.back();
      if (last.state == TableState::kKnown) h.catalog_.Put(last.schema);
      if (last.state == TableState::kUnknown) h.catalog_.PutUnknown(table);
    }
    return h;
  } catch (const nlohmann::json::exception& e) {
    Fail(ErrorCode::kCorruption, "{}: not a rowbridge schema history ({}): {}", origin, e.what(),
         text.substr(0, 200));
  }
}

}  // namespace rowbridge::schema
