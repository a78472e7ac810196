#include "snapshot/chunk_sql.h"

#include <fmt/format.h>

#include "binlog/column_type.h"
#include "binlog/decimal.h"
#include "binlog/value_decoder.h"
#include "common/error.h"
#include "mapping/mysql_text.h"
#include "mysql/sql_quote.h"

namespace rowbridge::snapshot {

using binlog::Cell;
using binlog::ColumnType;

std::vector<KeyCollation> LoadKeyCollations(mysql::Connection& connection,
                                            std::span<const binlog::ColumnDef* const> key_columns) {
  std::vector<KeyCollation> out(key_columns.size());
  for (size_t i = 0; i < key_columns.size(); ++i) {
    const binlog::ColumnDef& c = *key_columns[i];
    switch (c.type) {
      case ColumnType::kString:
      case ColumnType::kVarchar:
      case ColumnType::kVarString:
      case ColumnType::kBlob:
      case ColumnType::kTinyBlob:
      case ColumnType::kMediumBlob:
      case ColumnType::kLongBlob:
        break;
      default:
        continue;
    }
    if (c.charset == 63 || c.charset == 0) {
      out[i] = {"binary", "binary"};
      continue;
    }
    auto rows =
        connection.QueryRows(fmt::format("SELECT CHARACTER_SET_NAME, COLLATION_NAME FROM "
                                         "information_schema.COLLATIONS WHERE ID = {}",
                                         c.charset));
    if (rows.empty() || rows[0].size() < 2 || !rows[0][0] || !rows[0][1])
      Fail(ErrorCode::kConfig, "key column {}: the source knows no collation with id {}", c.name,
           c.charset);
    out[i] = {*rows[0][0], *rows[0][1]};
  }
  return out;
}

void AppendKeyLiteral(const Cell& cell, const KeyCollation& collation, std::string& out) {
  if (cell.is_null) {
    out += "NULL";
    return;
  }
  const binlog::ColumnDef& c = *cell.column;
  switch (c.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      out += c.is_unsigned ? std::to_string(binlog::CellUnsignedInteger(cell))
                           : std::to_string(binlog::CellSignedInteger(cell));
      return;
    case ColumnType::kYear:
      out += std::to_string(binlog::CellYear(cell));
      return;
    case ColumnType::kBit:
      out += std::to_string(binlog::CellBit(cell));
      return;
    case ColumnType::kEnum:
      out += std::to_string(binlog::CellEnumIndex(cell));
      return;
    case ColumnType::kSet:
      out += std::to_string(binlog::CellSetBits(cell));
      return;
    case ColumnType::kNewDecimal:
      binlog::AppendDecimalText(cell.data, cell.size, c.precision, c.scale, out);
      return;
    case ColumnType::kFloat:
    case ColumnType::kDouble: {
      // Floats compare with a double literal of their exact value.
      const double v =
          c.type == ColumnType::kFloat ? binlog::CellFloat(cell) : binlog::CellDouble(cell);
      out += fmt::format("{}e0", v);
      return;
    }
    case ColumnType::kString:
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob: {
      const std::string_view bytes = binlog::CellBytes(cell);
      out += "_";
      out += collation.charset.empty() ? "binary" : collation.charset;
      out += " X'";
      for (unsigned char ch : bytes) fmt::format_to(std::back_inserter(out), "{:02X}", ch);
      out += "'";
      return;
    }
    default: {
      // DATE, DATETIME, TIMESTAMP (UTC), TIME: MySQL's text, quoted.
      std::string text;
      mapping::AppendMysqlText(cell, *mapping::TimeZone::Utc(), text);
      out += mysql::QuoteString(text);
      return;
    }
  }
}

namespace {

// `loose` and `strict` compare the leading key columns, `last` the last one: (">=", ">", ">")
// gives the keys after `key`, ("<=", "<", "<=") those up to it.
std::string KeyCondition(std::span<const std::string> names, std::span<const Cell> key,
                         std::span<const KeyCollation> collations, const char* loose,
                         const char* strict, const char* last) {
  // k1 >= a AND (k1 > a OR (k2 >= b AND (k2 > b OR k3 > c)))
  std::string sql;
  std::string closing;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string literal;
    AppendKeyLiteral(key[i], collations[i], literal);
    if (i + 1 == names.size()) {
      sql += names[i] + last + literal;
    } else {
      sql += names[i] + loose + literal + " AND (" + names[i] + strict + literal + " OR (";
      closing += "))";
    }
  }
  return sql + closing;
}

}  // namespace

std::string AfterKeyCondition(std::span<const std::string> names, std::span<const Cell> last,
                              std::span<const KeyCollation> collations) {
  return KeyCondition(names, last, collations, " >= ", " > ", " > ");
}

std::string AtOrBeforeKeyCondition(std::span<const std::string> names, std::span<const Cell> key,
                                   std::span<const KeyCollation> collations) {
  // k1 <= a AND (k1 < a OR (k2 <= b AND (k2 < b OR k3 <= c)))
  return KeyCondition(names, key, collations, " <= ", " < ", " <= ");
}

std::string CellHex(const Cell& cell) {
  std::string out;
  for (size_t i = 0; i < cell.size; ++i)
    fmt::format_to(std::back_inserter(out), "{:02x}", cell.data[i]);
  return out;
}

void CellFromHex(std::string_view hex, const binlog::ColumnDef& column, uint32_t index,
                 std::string& storage, Cell& cell) {
  if (hex.size() % 2 != 0) Fail(ErrorCode::kCorruption, "key value \"{}\" is not hex", hex);
  storage.clear();
  auto nibble = [&](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    Fail(ErrorCode::kCorruption, "key value \"{}\" is not hex", hex);
  };
  for (size_t i = 0; i < hex.size(); i += 2)
    storage.push_back(static_cast<char>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  cell = Cell{};
  cell.column = &column;
  cell.index = index;
  cell.data = reinterpret_cast<const uint8_t*>(storage.data());
  cell.size = storage.size();
}

}  // namespace rowbridge::snapshot
