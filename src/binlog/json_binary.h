// MySQL's binary JSON (the storage format of JSON columns, sql-common/json_binary.cc) and the
// binary JSON diffs that PARTIAL_UPDATE_ROWS events carry (binlog_row_value_options=PARTIAL_JSON).
//
// Text output is exactly what MySQL prints for `SELECT json_col` and what mysqlbinlog prints
// inside the quotes: `{"a": 1, "b": [true, null]}` (", " and ": " separators, object keys in
// stored order), doubles in MySQL's shortest form ("1.5", "1e100", "-0.0", "1.0"), strings with
// JSON escapes, opaque DATE/TIME/DATETIME/TIMESTAMP as quoted MySQL text (datetime and time with
// 6 fraction digits), opaque DECIMAL as a bare number ("123.456"), any other opaque value as
// "base64:typeNN:<base64>". The output is valid JSON whenever the strings in the document are
// valid UTF-8 (MySQL guarantees it; value_format.cpp sanitises for dump-binlog).
//
// Input is untrusted: every offset and length is bounds-checked, nesting is limited to
// kMaxJsonDepth, and anything malformed throws Error(kCorruption) naming the byte offset within
// the document. An empty document (0 bytes) is what MySQL writes for a JSON NULL-equivalent empty
// value and prints as `null`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rowbridge::binlog {

// MySQL itself refuses documents nested deeper than 100; leave headroom but stay bounded.
inline constexpr int kMaxJsonDepth = 150;

// Appends the MySQL text of a binary JSON document, as `SELECT json_col` shows it.
void AppendJsonBinaryText(const uint8_t* data, size_t size, std::string& out);
std::string JsonBinaryText(const uint8_t* data, size_t size);

// Appends a JSON column value the way MySQL's mysqlbinlog -v prints it after "@N=": the text in
// single quotes, with a top-level string/date/opaque scalar printed without its JSON double quotes
// (mysqlbinlog converts with json_quoted=false), and the quoting of MySQL 8's my_b_write_quoted:
// \b \f \n \r \t \\ \' and \xNN for other bytes below 0x20.
void AppendJsonBinaryForMysqlbinlog(const uint8_t* data, size_t size, std::string& out);

// MySQL's text for a JSON double: the shortest round-trip digits, fixed notation for exponents
// -15 < e < 15 (".0" appended to integral values), otherwise "1e100" / "1.5e-20" style.
void AppendMysqlJsonDouble(double value, std::string& out);

// One entry of a binary JSON diff.
enum class JsonDiffOperation : uint8_t { kReplace = 0, kInsert = 1, kRemove = 2 };

struct JsonDiff {
  JsonDiffOperation operation = JsonDiffOperation::kReplace;
  std::string_view path;           // JSON path text, e.g. "$.a[1]"
  const uint8_t* value = nullptr;  // binary JSON document; null/0 for kRemove
  size_t value_size = 0;
};

// Walks the diffs of one PARTIAL_UPDATE_ROWS JSON cell in order. No allocation.
class JsonDiffReader {
 public:
  JsonDiffReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // Fills `diff` and returns true, or returns false at the end. Throws Error(kCorruption).
  bool Next(JsonDiff& diff);

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Appends the diff list as MySQL's mysqlbinlog -v prints it for column `column_number` (1-based,
// the N of "@N"): runs of equal operations become one call, calls nest in order of application,
// and every argument after the first call goes on a new "###      " line, e.g.
//   JSON_INSERT(
//   ###      JSON_REPLACE(@2, '$.a', 1,
//   ###      '$.b', 'x'),
//   ###      '$.c', CAST('[1, 2]' AS JSON))
// INSERT at a path ending in ']' prints as JSON_ARRAY_INSERT. Scalars print bare (numbers,
// true/false/null) or single-quoted (strings, dates, opaque); arrays and objects as
// CAST('...' AS JSON). An empty diff list prints "@N" (the column is unchanged).
void AppendJsonDiffText(const uint8_t* data, size_t size, uint32_t column_number, std::string& out);

}  // namespace rowbridge::binlog
