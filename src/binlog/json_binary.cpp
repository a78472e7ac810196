#include "binlog/json_binary.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <vector>

#include "binlog/base64.h"
#include "binlog/decimal.h"
#include "binlog/json_string.h"
#include "binlog/temporal.h"
#include "common/byte_reader.h"
#include "common/error.h"

namespace rowbridge::binlog {
namespace {

// MySQL's base64_encode breaks its output into lines of 76 characters.
constexpr size_t kMysqlBase64LineLength = 76;

// Value type bytes of the binary format (sql-common/json_binary.h).
enum : uint8_t {
  kSmallObject = 0x00,
  kLargeObject = 0x01,
  kSmallArray = 0x02,
  kLargeArray = 0x03,
  kLiteral = 0x04,
  kInt16 = 0x05,
  kUInt16 = 0x06,
  kInt32 = 0x07,
  kUInt32 = 0x08,
  kInt64 = 0x09,
  kUInt64 = 0x0a,
  kDouble = 0x0b,
  kString = 0x0c,
  kOpaque = 0x0f,
};
enum : uint8_t { kLiteralNull = 0x00, kLiteralTrue = 0x01, kLiteralFalse = 0x02 };

// MySQL column type codes that opaque values carry and that print specially.
enum : uint8_t {
  kFieldTimestamp = 7,
  kFieldDate = 10,
  kFieldTime = 11,
  kFieldDateTime = 12,
  kFieldNewDecimal = 246,
  kFieldVarString = 253,
};

// How mysqlbinlog chooses to quote a diff value, by the JSON type of the value.
enum class JsonKind { kBare, kQuoted, kContainer };

uint64_t LoadLittleEndian(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// A JSON string exactly as MySQL prints it: its escapes, and bytes that are not UTF-8 as they are.
void AppendJsonQuoted(const uint8_t* p, size_t n, std::string& out) {
  AppendJsonString(std::string_view(reinterpret_cast<const char*>(p), n), out,
                   InvalidUtf8::kVerbatim);
}

// Converts one binary JSON document to text. Every read is bounds-checked against the enclosing
// container; two budgets keep hostile documents (containers whose entries all point at the same
// child, strings referenced many times) linear: a valid document has at most one value per byte
// and its strings and keys occupy disjoint bytes.
class JsonTextWriter {
 public:
  JsonTextWriter(const uint8_t* doc, size_t size, std::string& out)
      : doc_(doc), size_(size), out_(out), value_budget_(size + 1), byte_budget_(size) {}

  // Writes the whole document; returns the kind of its top-level value.
  JsonKind WriteDocument(bool quote_scalars) {
    if (size_ == 0) {  // MySQL reads an empty JSON value as the null literal
      out_.append("null");
      return JsonKind::kBare;
    }
    return WriteValue(doc_[0], doc_ + 1, size_ - 1, 0, quote_scalars);
  }

 private:
  [[noreturn]] void Corrupt(const uint8_t* at, std::string_view what) const {
    Fail(ErrorCode::kCorruption, "binary JSON at byte {} of {}: {}", at - doc_, size_, what);
  }

  void Need(const uint8_t* at, size_t available, size_t wanted, const char* what) const {
    if (wanted > available) {
      Corrupt(at, fmt::format("truncated {} (needs {} bytes, {} left)", what, wanted, available));
    }
  }

  void SpendBytes(const uint8_t* at, size_t n) {
    if (n > byte_budget_) Corrupt(at, "strings overlap (more string bytes than the document)");
    byte_budget_ -= n;
  }

  // Variable-length string length: 7 bits per byte, low groups first, at most 5 bytes.
  uint64_t ReadVarLength(const uint8_t*& p, size_t& available) {
    uint64_t length = 0;
    for (int i = 0; i < 5; ++i) {
      Need(p, available, 1, "string length");
      const uint8_t b = *p++;
      --available;
      length |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        if (length > UINT32_MAX) Corrupt(p, "string length exceeds 4 GiB");
        return length;
      }
    }
    Corrupt(p, "string length longer than 5 bytes");
  }

  JsonKind WriteValue(uint8_t type, const uint8_t* p, size_t available, int depth, bool quoted) {
    if (value_budget_ == 0) Corrupt(p, "more values than the document has bytes (shared values)");
    --value_budget_;
    switch (type) {
      case kSmallObject:
      case kLargeObject:
      case kSmallArray:
      case kLargeArray:
        WriteContainer(type, p, available, depth + 1);
        return JsonKind::kContainer;
      case kLiteral:
        Need(p, available, 1, "literal");
        switch (p[0]) {
          case kLiteralNull:
            out_.append("null");
            break;
          case kLiteralTrue:
            out_.append("true");
            break;
          case kLiteralFalse:
            out_.append("false");
            break;
          default:
            Corrupt(p, fmt::format("unknown literal 0x{:02x}", p[0]));
        }
        return JsonKind::kBare;
      case kInt16:
        Need(p, available, 2, "int16");
        fmt::format_to(std::back_inserter(out_), "{}",
                       static_cast<int16_t>(LoadLittleEndian(p, 2)));
        return JsonKind::kBare;
      case kUInt16:
        Need(p, available, 2, "uint16");
        fmt::format_to(std::back_inserter(out_), "{}", LoadLittleEndian(p, 2));
        return JsonKind::kBare;
      case kInt32:
        Need(p, available, 4, "int32");
        fmt::format_to(std::back_inserter(out_), "{}",
                       static_cast<int32_t>(LoadLittleEndian(p, 4)));
        return JsonKind::kBare;
      case kUInt32:
        Need(p, available, 4, "uint32");
        fmt::format_to(std::back_inserter(out_), "{}", LoadLittleEndian(p, 4));
        return JsonKind::kBare;
      case kInt64:
        Need(p, available, 8, "int64");
        fmt::format_to(std::back_inserter(out_), "{}",
                       static_cast<int64_t>(LoadLittleEndian(p, 8)));
        return JsonKind::kBare;
      case kUInt64:
        Need(p, available, 8, "uint64");
        fmt::format_to(std::back_inserter(out_), "{}", LoadLittleEndian(p, 8));
        return JsonKind::kBare;
      case kDouble: {
        Need(p, available, 8, "double");
        double d;
        const uint64_t bits = LoadLittleEndian(p, 8);
        std::memcpy(&d, &bits, sizeof d);
        AppendMysqlJsonDouble(d, out_);
        return JsonKind::kBare;
      }
      case kString: {
        const uint64_t length = ReadVarLength(p, available);
        Need(p, available, length, "string");
        SpendBytes(p, length);
        if (quoted) {
          AppendJsonQuoted(p, length, out_);
        } else {
          out_.append(reinterpret_cast<const char*>(p), length);
        }
        return JsonKind::kQuoted;
      }
      case kOpaque:
        return WriteOpaque(p, available, quoted);
      default:
        Corrupt(p - 1, fmt::format("unknown value type 0x{:02x}", type));
    }
  }

  JsonKind WriteOpaque(const uint8_t* p, size_t available, bool quoted) {
    Need(p, available, 1, "opaque type");
    const uint8_t field_type = *p++;
    --available;
    const uint64_t length = ReadVarLength(p, available);
    Need(p, available, length, "opaque value");
    SpendBytes(p, length);
    auto quote = [&] {
      if (quoted) out_.push_back('"');
    };
    switch (field_type) {
      case kFieldNewDecimal: {
        // precision, scale, then the binary DECIMAL.
        if (length < 2) Corrupt(p, "opaque DECIMAL shorter than its precision and scale");
        const int precision = p[0];
        const int scale = p[1];
        if (precision < 1 || precision > kMaxDecimalPrecision || scale > precision ||
            scale > kMaxDecimalScale) {
          Corrupt(p, fmt::format("opaque DECIMAL({},{}) out of range", precision, scale));
        }
        const size_t bytes = DecimalBinarySize(precision, scale);
        if (length - 2 < bytes) Corrupt(p, "opaque DECIMAL shorter than its precision needs");
        AppendDecimalText(p + 2, bytes, precision, scale, out_);
        return JsonKind::kBare;
      }
      case kFieldDate:
      case kFieldTime:
      case kFieldDateTime:
      case kFieldTimestamp: {
        if (length != 8) {
          Corrupt(p, fmt::format("opaque temporal value of {} bytes, expected 8", length));
        }
        const int64_t packed = static_cast<int64_t>(LoadLittleEndian(p, 8));
        quote();
        if (field_type == kFieldTime) {
          AppendTimeText(UnpackTimePacked(packed), 6, out_);
        } else if (field_type == kFieldDate) {
          AppendDateText(UnpackDateTimePacked(packed), out_);
        } else {
          AppendDateTimeText(UnpackDateTimePacked(packed), 6, out_);
        }
        quote();
        return JsonKind::kQuoted;
      }
      case kFieldVarString:  // MySQL treats strings stored as opaque as plain strings
        if (quoted) {
          AppendJsonQuoted(p, length, out_);
        } else {
          out_.append(reinterpret_cast<const char*>(p), length);
        }
        return JsonKind::kQuoted;
      default: {
        // "base64:typeNN:<base64>"; the base64 text may hold newlines, escaped when quoted.
        std::string encoded = fmt::format("base64:type{}:", field_type);
        AppendBase64(p, length, encoded, kMysqlBase64LineLength);
        if (quoted) {
          AppendJsonQuoted(reinterpret_cast<const uint8_t*>(encoded.data()), encoded.size(), out_);
        } else {
          out_.append(encoded);
        }
        return JsonKind::kQuoted;
      }
    }
  }

  void WriteContainer(uint8_t type, const uint8_t* base, size_t available, int depth) {
    if (depth > kMaxJsonDepth) Corrupt(base, "nesting deeper than the limit");
    const bool large = type == kLargeObject || type == kLargeArray;
    const bool object = type == kSmallObject || type == kLargeObject;
    const size_t offset_size = large ? 4 : 2;
    Need(base, available, 2 * offset_size, object ? "object header" : "array header");
    const uint64_t count = LoadLittleEndian(base, offset_size);
    const uint64_t bytes = LoadLittleEndian(base + offset_size, offset_size);
    if (bytes > available) {
      Corrupt(base, fmt::format("{} claims {} bytes, only {} left", object ? "object" : "array",
                                bytes, available));
    }
    const uint64_t key_entry_size = offset_size + 2;
    const uint64_t value_entry_size = 1 + offset_size;
    const uint64_t header =
        2 * offset_size + count * ((object ? key_entry_size : 0) + value_entry_size);
    if (header > bytes) {
      Corrupt(base, fmt::format("{} of {} elements does not fit in {} bytes",
                                object ? "object" : "array", count, bytes));
    }
    const size_t size = static_cast<size_t>(bytes);
    const uint8_t* key_entries = base + 2 * offset_size;
    const uint8_t* value_entries = key_entries + (object ? count * key_entry_size : 0);

    out_.push_back(object ? '{' : '[');
    for (uint64_t i = 0; i < count; ++i) {
      if (i > 0) out_.append(", ");
      if (object) {
        const uint8_t* entry = key_entries + i * key_entry_size;
        const uint64_t key_offset = LoadLittleEndian(entry, offset_size);
        const uint64_t key_length = LoadLittleEndian(entry + offset_size, 2);
        if (key_offset > size || key_length > size - key_offset) {
          Corrupt(entry, fmt::format("key {} at offset {} length {} is outside the object", i,
                                     key_offset, key_length));
        }
        SpendBytes(base + key_offset, key_length);
        AppendJsonQuoted(base + key_offset, key_length, out_);
        out_.append(": ");
      }
      const uint8_t* entry = value_entries + i * value_entry_size;
      const uint8_t value_type = entry[0];
      if (IsInlined(value_type, large)) {
        WriteValue(value_type, entry + 1, offset_size, depth, true);
      } else {
        const uint64_t offset = LoadLittleEndian(entry + 1, offset_size);
        if (offset >= size) {
          Corrupt(entry,
                  fmt::format("value {} at offset {} is outside the {} bytes", i, offset, size));
        }
        WriteValue(value_type, base + offset, size - offset, depth, true);
      }
    }
    out_.push_back(object ? '}' : ']');
  }

  static bool IsInlined(uint8_t type, bool large) {
    switch (type) {
      case kLiteral:
      case kInt16:
      case kUInt16:
        return true;
      case kInt32:
      case kUInt32:
        return large;
      default:
        return false;
    }
  }

  const uint8_t* doc_;
  size_t size_;
  std::string& out_;
  size_t value_budget_;
  size_t byte_budget_;
};

// mysqlbinlog's my_b_write_quoted (MySQL 8): named escapes for \b \f \n \r \t \\ \', \xNN for
// other bytes below 0x20, everything else verbatim.
void AppendMysqlSingleQuoted(std::string_view text, std::string& out) {
  out.push_back('\'');
  for (char ch : text) {
    const auto c = static_cast<uint8_t>(ch);
    switch (c) {
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\'':
        out.append("\\'");
        break;
      default:
        if (c < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('\'');
}

const char* DiffFunctionName(const JsonDiff& diff) {
  switch (diff.operation) {
    case JsonDiffOperation::kReplace:
      return "JSON_REPLACE";
    case JsonDiffOperation::kInsert:
      return !diff.path.empty() && diff.path.back() == ']' ? "JSON_ARRAY_INSERT" : "JSON_INSERT";
    case JsonDiffOperation::kRemove:
      return "JSON_REMOVE";
  }
  return "?";
}

}  // namespace

void AppendMysqlJsonDouble(double value, std::string& out) {
  if (!std::isfinite(value)) {  // cannot be stored in JSON; my_gcvt prints "0" for them
    out.append("0.0");
    return;
  }
  // Shortest round-trip digits and the decimal exponent, as dtoa mode 0 gives them.
  char buf[40];
  const auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(result.ptr - buf));
  const bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  const size_t e_pos = sci.find('e');
  char digits[20];
  int len = 0;
  for (size_t i = 0; i < e_pos; ++i) {
    if (sci[i] != '.') digits[len++] = sci[i];
  }
  int exponent = 0;
  std::from_chars(sci.data() + e_pos + 1 + (sci[e_pos + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exponent);
  // dtoa's decpt: the value is 0.d1d2... * 10^decpt.
  const int decpt = value == 0 ? 1 : exponent + 1;
  if (value == 0) len = 1;

  // my_gcvt(MY_GCVT_ARG_DOUBLE, width 34): fixed notation when it fits in the width and
  // -15 < decpt-1 < 15 (or the value has digits after the point); exponent form otherwise.
  const int width = negative ? 33 : 34;
  const int fixed_length = decpt <= 0 ? len - decpt + 2 : decpt < len ? len + 1 : decpt;
  const bool fixed = fixed_length <= width && decpt >= -14 && (decpt <= 15 || len > decpt);
  const size_t start = out.size();
  if (negative) out.push_back('-');
  if (fixed) {
    if (decpt <= 0) {
      out.append("0.");
      out.append(static_cast<size_t>(-decpt), '0');
      out.append(digits, static_cast<size_t>(len));
    } else if (decpt < len) {
      out.append(digits, static_cast<size_t>(decpt));
      out.push_back('.');
      out.append(digits + decpt, static_cast<size_t>(len - decpt));
    } else {
      out.append(digits, static_cast<size_t>(len));
      out.append(static_cast<size_t>(decpt - len), '0');
    }
  } else {
    out.push_back(digits[0]);
    if (len > 1) {
      out.push_back('.');
      out.append(digits + 1, static_cast<size_t>(len - 1));
    }
    fmt::format_to(std::back_inserter(out), "e{}", decpt - 1);
  }
  // MySQL keeps doubles distinguishable from integers.
  if (out.find_first_of(".e", start) == std::string::npos) out.append(".0");
}

void AppendJsonBinaryText(const uint8_t* data, size_t size, std::string& out) {
  JsonTextWriter(data, size, out).WriteDocument(true);
}

std::string JsonBinaryText(const uint8_t* data, size_t size) {
  std::string out;
  AppendJsonBinaryText(data, size, out);
  return out;
}

void AppendJsonBinaryForMysqlbinlog(const uint8_t* data, size_t size, std::string& out) {
  std::string text;
  JsonTextWriter(data, size, text).WriteDocument(false);
  AppendMysqlSingleQuoted(text, out);
}

bool JsonDiffReader::Next(JsonDiff& diff) {
  if (pos_ == size_) return false;
  ByteReader reader(data_ + pos_, size_ - pos_, pos_, "binary JSON diff");
  const uint8_t operation = reader.U8("diff operation");
  if (operation > static_cast<uint8_t>(JsonDiffOperation::kRemove)) {
    Fail(ErrorCode::kCorruption, "binary JSON diff at byte {}: unknown operation {}", pos_,
         operation);
  }
  diff.operation = static_cast<JsonDiffOperation>(operation);
  const uint64_t path_length = reader.LengthEncoded("diff path length");
  if (path_length > reader.remaining()) reader.Need(path_length, "diff path");
  diff.path = reader.Bytes(static_cast<size_t>(path_length), "diff path");
  if (diff.path.empty()) {
    Fail(ErrorCode::kCorruption, "binary JSON diff at byte {}: empty path", pos_);
  }
  diff.value = nullptr;
  diff.value_size = 0;
  if (diff.operation != JsonDiffOperation::kRemove) {
    const uint64_t value_length = reader.LengthEncoded("diff value length");
    if (value_length > reader.remaining()) reader.Need(value_length, "diff value");
    std::string_view value = reader.Bytes(static_cast<size_t>(value_length), "diff value");
    diff.value = reinterpret_cast<const uint8_t*>(value.data());
    diff.value_size = value.size();
  }
  pos_ += reader.position();
  return true;
}

void AppendJsonDiffText(const uint8_t* data, size_t size, uint32_t column_number,
                        std::string& out) {
  static constexpr std::string_view kLineSeparator = "\n###      ";
  // First pass: validate and collect the function names, which print outermost (last) first.
  size_t count = 0;
  {
    JsonDiffReader reader(data, size);
    JsonDiff diff;
    while (reader.Next(diff)) ++count;
  }
  const std::string column = fmt::format("@{}", column_number);
  if (count == 0) {
    out.append(column);
    return;
  }
  std::vector<const char*> names;
  names.reserve(count);
  {
    JsonDiffReader reader(data, size);
    JsonDiff diff;
    while (reader.Next(diff)) names.push_back(DiffFunctionName(diff));
  }
  bool printed = false;
  for (size_t i = count; i-- > 0;) {
    if (i == 0 || std::strcmp(names[i - 1], names[i]) != 0) {
      if (printed) out.append(kLineSeparator);
      out.append(names[i]);
      out.push_back('(');
      printed = true;
    }
  }
  out.append(column);
  out.append(", ");

  JsonDiffReader reader(data, size);
  JsonDiff diff;
  size_t i = 0;
  std::string value_text;
  while (reader.Next(diff)) {
    AppendMysqlSingleQuoted(diff.path, out);
    if (diff.operation != JsonDiffOperation::kRemove) {
      out.append(", ");
      value_text.clear();
      const JsonKind kind =
          JsonTextWriter(diff.value, diff.value_size, value_text).WriteDocument(false);
      switch (kind) {
        case JsonKind::kBare:
          out.append(value_text);
          break;
        case JsonKind::kQuoted:
          AppendMysqlSingleQuoted(value_text, out);
          break;
        case JsonKind::kContainer:
          out.append("CAST(");
          AppendMysqlSingleQuoted(value_text, out);
          out.append(" AS JSON)");
          break;
      }
    }
    const bool last = i + 1 == count;
    if (last || std::strcmp(names[i + 1], names[i]) != 0) out.push_back(')');
    if (!last) {
      out.push_back(',');
      out.append(kLineSeparator);
    }
    ++i;
  }
}

}  // namespace rowbridge::binlog
