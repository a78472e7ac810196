#include "mapping_cells.h"

#include <charconv>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "binlog/column_type.h"
#include "binlog/decimal.h"
#include "clickhouse/columns/civil_time.h"

namespace rowbridge::testing {

namespace {

using binlog::ColumnDef;
using binlog::ColumnType;

[[noreturn]] void Bad(std::string_view what, std::string_view text) {
  throw std::invalid_argument(std::string(what) + ": '" + std::string(text) + "'");
}

std::string Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

int64_t ParseInt(std::string_view text) {
  int64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) Bad("bad integer", text);
  return v;
}

uint64_t ParseUInt(std::string_view text) {
  uint64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) Bad("bad unsigned integer", text);
  return v;
}

// "(a,b)" arguments after the type name.
std::vector<std::string> Args(std::string_view rest) {
  std::vector<std::string> args;
  if (rest.empty() || rest.front() != '(') return args;
  size_t close = rest.rfind(')');
  std::string_view inner = rest.substr(1, close - 1);
  std::string current;
  bool quoted = false;
  for (size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (c == '\'') {
      if (quoted && i + 1 < inner.size() && inner[i + 1] == '\'') {
        current += '\'';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      args.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  args.push_back(current);
  return args;
}

void PutLittleEndian(std::string& out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutBigEndian(std::string& out, uint64_t v, size_t n) {
  for (size_t i = n; i-- > 0;) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

struct Parts {
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micro = 0;
  bool negative = false;
};

// "YYYY-MM-DD", "YYYY-MM-DD HH:MM:SS[.f]", "[-]HH:MM:SS[.f]".
Parts ParseTemporal(std::string_view text, bool has_date, bool has_time) {
  Parts p;
  std::string_view s = text;
  if (has_date) {
    if (s.size() < 10 || s[4] != '-' || s[7] != '-') Bad("bad date", text);
    p.year = ParseInt(s.substr(0, 4));
    p.month = ParseInt(s.substr(5, 2));
    p.day = ParseInt(s.substr(8, 2));
    s.remove_prefix(10);
    if (!has_time) {
      if (!s.empty()) Bad("bad date", text);
      return p;
    }
    if (s.empty()) return p;
    if (s.front() != ' ') Bad("bad datetime", text);
    s.remove_prefix(1);
  }
  if (!s.empty() && s.front() == '-') {
    p.negative = true;
    s.remove_prefix(1);
  }
  size_t c1 = s.find(':');
  size_t c2 = s.find(':', c1 + 1);
  if (c1 == std::string_view::npos || c2 == std::string_view::npos) Bad("bad time", text);
  p.hour = ParseInt(s.substr(0, c1));
  p.minute = ParseInt(s.substr(c1 + 1, c2 - c1 - 1));
  std::string_view sec = s.substr(c2 + 1);
  size_t dot = sec.find('.');
  p.second = ParseInt(sec.substr(0, dot));
  if (dot != std::string_view::npos) {
    std::string frac(sec.substr(dot + 1));
    if (frac.size() > 6) Bad("more than 6 fraction digits", text);
    frac.resize(6, '0');
    p.micro = ParseInt(frac);
  }
  return p;
}

void PutFraction(std::string& out, int64_t micro, uint32_t fsp) {
  switch (fsp) {
    case 0:
      return;
    case 1:
    case 2:
      PutBigEndian(out, static_cast<uint64_t>(micro / 10000), 1);
      return;
    case 3:
    case 4:
      PutBigEndian(out, static_cast<uint64_t>(micro / 100), 2);
      return;
    default:
      PutBigEndian(out, static_cast<uint64_t>(micro), 3);
      return;
  }
}

std::string EncodeDecimal(const ColumnDef& c, std::string_view text) {
  static constexpr int kDigBytes[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  size_t dot = text.find('.');
  std::string int_digits(text.substr(0, dot));
  std::string frac_digits = dot == std::string_view::npos ? "" : std::string(text.substr(dot + 1));
  const int scale = c.scale;
  const int intg = c.precision - scale;
  if (frac_digits.size() > static_cast<size_t>(scale)) Bad("too many fraction digits", text);
  if (int_digits.size() > static_cast<size_t>(intg)) Bad("too many integer digits", text);
  int_digits.insert(0, intg - int_digits.size(), '0');
  frac_digits.resize(scale, '0');
  std::string out;
  auto group = [&](const std::string& digits, size_t from, int count) {
    uint64_t v = count == 0 ? 0 : ParseUInt(std::string_view(digits).substr(from, count));
    PutBigEndian(out, v, kDigBytes[count]);
  };
  const int intg0x = intg % 9;
  group(int_digits, 0, intg0x);
  for (int i = intg0x; i < intg; i += 9) group(int_digits, i, 9);
  const int frac0 = scale / 9, frac0x = scale % 9;
  for (int i = 0; i < frac0; ++i) group(frac_digits, i * 9, 9);
  group(frac_digits, frac0 * 9, frac0x);
  if (negative)
    for (char& b : out) b = static_cast<char>(~b);
  out[0] = static_cast<char>(out[0] ^ 0x80);
  if (out.size() != binlog::DecimalBinarySize(c.precision, scale)) Bad("decimal size", text);
  return out;
}

}  // namespace

ColumnDef ParseMysqlType(std::string_view spec_in, std::string name) {
  ColumnDef c;
  c.name = std::move(name);
  std::string spec = Trim(spec_in);
  const std::string kNotNull = " NOT NULL";
  if (spec.size() > kNotNull.size() && spec.ends_with(kNotNull)) {
    c.nullable = false;
    spec.resize(spec.size() - kNotNull.size());
  }
  const std::string kUnsigned = " UNSIGNED";
  if (spec.ends_with(kUnsigned)) {
    c.is_unsigned = true;
    c.signedness_known = true;
    spec.resize(spec.size() - kUnsigned.size());
  }
  size_t paren = spec.find('(');
  const std::string base = spec.substr(0, paren);
  const std::vector<std::string> args =
      Args(paren == std::string::npos ? std::string_view() : std::string_view(spec).substr(paren));
  auto arg = [&](size_t i) { return static_cast<uint32_t>(ParseUInt(Trim(args.at(i)))); };
  auto fsp = [&] { return args.empty() ? 0u : arg(0); };
  c.charset = 33;  // utf8
  if (base == "TINYINT")
    c.type = ColumnType::kTiny;
  else if (base == "SMALLINT")
    c.type = ColumnType::kShort;
  else if (base == "MEDIUMINT")
    c.type = ColumnType::kInt24;
  else if (base == "INT")
    c.type = ColumnType::kLong;
  else if (base == "BIGINT")
    c.type = ColumnType::kLongLong;
  else if (base == "FLOAT") {
    c.type = ColumnType::kFloat;
    c.meta = 4;
  } else if (base == "DOUBLE") {
    c.type = ColumnType::kDouble;
    c.meta = 8;
  } else if (base == "DECIMAL") {
    c.type = ColumnType::kNewDecimal;
    c.precision = static_cast<uint8_t>(arg(0));
    c.scale = static_cast<uint8_t>(arg(1));
  } else if (base == "BIT") {
    c.type = ColumnType::kBit;
    c.meta = arg(0);
  } else if (base == "YEAR")
    c.type = ColumnType::kYear;
  else if (base == "DATE")
    c.type = ColumnType::kDate;
  else if (base == "TIME") {
    c.type = ColumnType::kTime2;
    c.meta = fsp();
  } else if (base == "DATETIME") {
    c.type = ColumnType::kDateTime2;
    c.meta = fsp();
  } else if (base == "TIMESTAMP") {
    c.type = ColumnType::kTimestamp2;
    c.meta = fsp();
  } else if (base == "OLDTIME")
    c.type = ColumnType::kTime;
  else if (base == "OLDDATETIME")
    c.type = ColumnType::kDateTime;
  else if (base == "OLDTIMESTAMP")
    c.type = ColumnType::kTimestamp;
  else if (base == "CHAR" || base == "BINARY") {
    c.type = ColumnType::kString;
    c.meta = arg(0) * (base == "CHAR" ? 3 : 1);
    if (base == "BINARY") c.charset = 63;
  } else if (base == "VARCHAR" || base == "VARBINARY") {
    c.type = ColumnType::kVarchar;
    c.meta = arg(0) * (base == "VARCHAR" ? 3 : 1);
    if (base == "VARBINARY") c.charset = 63;
  } else if (base == "TEXT" || base == "BLOB") {
    c.type = ColumnType::kBlob;
    c.meta = 2;
    if (base == "BLOB") c.charset = 63;
  } else if (base == "JSON") {
    c.type = ColumnType::kJson;
    c.meta = 4;
    c.charset = 63;
  } else if (base == "GEOMETRY") {
    c.type = ColumnType::kGeometry;
    c.meta = 4;
    c.charset = 63;
  } else if (base == "VECTOR") {
    c.type = ColumnType::kVector;
    c.meta = 2;
    c.vector_dimensions = arg(0);
    c.charset = 63;
  } else if (base == "ENUM") {
    c.type = ColumnType::kEnum;
    c.enum_values = args;
    c.meta = args.size() < 256 ? 1 : 2;
  } else if (base == "SET") {
    c.type = ColumnType::kSet;
    c.set_values = args;
    c.meta = static_cast<uint32_t>((args.size() + 7) / 8);
    if (c.meta > 4)
      c.meta = 8;
    else if (c.meta == 3)
      c.meta = 4;
  } else {
    Bad("unknown type", spec_in);
  }
  c.wire_type = c.type;
  return c;
}

std::string EncodeCellValue(const ColumnDef& c, std::string_view value) {
  std::string out;
  if (value.starts_with("hex:")) {
    std::string_view hex = value.substr(4);
    if (hex.size() % 2 != 0) Bad("odd hex", value);
    for (size_t i = 0; i < hex.size(); i += 2) {
      unsigned v = 0;
      std::from_chars(hex.data() + i, hex.data() + i + 2, v, 16);
      out.push_back(static_cast<char>(v));
    }
    return out;
  }
  switch (c.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong: {
      const size_t width = c.type == ColumnType::kTiny    ? 1
                           : c.type == ColumnType::kShort ? 2
                           : c.type == ColumnType::kInt24 ? 3
                           : c.type == ColumnType::kLong  ? 4
                                                          : 8;
      uint64_t bits =
          value.starts_with("-") ? static_cast<uint64_t>(ParseInt(value)) : ParseUInt(value);
      PutLittleEndian(out, bits, width);
      return out;
    }
    case ColumnType::kFloat: {
      float f = 0;
      std::from_chars(value.data(), value.data() + value.size(), f);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      PutLittleEndian(out, bits, 4);
      return out;
    }
    case ColumnType::kDouble: {
      double d = 0;
      std::from_chars(value.data(), value.data() + value.size(), d);
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      PutLittleEndian(out, bits, 8);
      return out;
    }
    case ColumnType::kNewDecimal:
      return EncodeDecimal(c, value);
    case ColumnType::kBit:
      PutBigEndian(out, ParseUInt(value), (c.meta + 7) / 8);
      return out;
    case ColumnType::kYear: {
      uint64_t y = ParseUInt(value);
      out.push_back(static_cast<char>(y == 0 ? 0 : y - 1900));
      return out;
    }
    case ColumnType::kEnum:
      PutLittleEndian(out, ParseUInt(value), c.meta);
      return out;
    case ColumnType::kSet:
      PutLittleEndian(out, ParseUInt(value), c.meta);
      return out;
    case ColumnType::kDate: {
      Parts p = ParseTemporal(value, true, false);
      PutLittleEndian(out, static_cast<uint64_t>(p.day | (p.month << 5) | (p.year << 9)), 3);
      return out;
    }
    case ColumnType::kDateTime2: {
      Parts p = ParseTemporal(value, true, true);
      const uint64_t ym = static_cast<uint64_t>(p.year * 13 + p.month);
      const uint64_t packed = (ym << 22) | (static_cast<uint64_t>(p.day) << 17) |
                              (static_cast<uint64_t>(p.hour) << 12) |
                              (static_cast<uint64_t>(p.minute) << 6) |
                              static_cast<uint64_t>(p.second);
      PutBigEndian(out, packed + 0x8000000000ull, 5);
      PutFraction(out, p.micro, c.meta);
      return out;
    }
    case ColumnType::kDateTime: {
      Parts p = ParseTemporal(value, true, true);
      const uint64_t v = static_cast<uint64_t>(((p.year * 100 + p.month) * 100 + p.day) * 1000000 +
                                               p.hour * 10000 + p.minute * 100 + p.second);
      PutLittleEndian(out, v, 8);
      return out;
    }
    case ColumnType::kTimestamp2:
    case ColumnType::kTimestamp: {
      int64_t seconds = 0, micro = 0;
      if (value != "0") {
        Parts p = ParseTemporal(value, true, true);
        seconds =
            clickhouse::DaysFromCivil(static_cast<int32_t>(p.year), static_cast<uint32_t>(p.month),
                                      static_cast<uint32_t>(p.day)) *
                86400 +
            p.hour * 3600 + p.minute * 60 + p.second;
        micro = p.micro;
      }
      if (c.type == ColumnType::kTimestamp) {
        PutLittleEndian(out, static_cast<uint64_t>(seconds), 4);
      } else {
        PutBigEndian(out, static_cast<uint64_t>(seconds), 4);
        PutFraction(out, micro, c.meta);
      }
      return out;
    }
    case ColumnType::kTime2: {
      Parts p = ParseTemporal(value, false, true);
      const int64_t int_part = (p.hour << 12) | (p.minute << 6) | p.second;
      int64_t packed = (int_part << 24) + p.micro;
      if (p.negative) packed = -packed;
      if (c.meta >= 5) {
        PutBigEndian(out, static_cast<uint64_t>(packed + 0x800000000000ll), 6);
      } else {
        if (p.negative && p.micro != 0 && c.meta > 0)
          Bad("negative fractional TIME with fsp 1..4: use hex", value);
        PutBigEndian(out, static_cast<uint64_t>((packed >> 24) + 0x800000), 3);
        PutFraction(out, p.micro, c.meta);
      }
      return out;
    }
    case ColumnType::kTime: {
      Parts p = ParseTemporal(value, false, true);
      int64_t v = p.hour * 10000 + p.minute * 100 + p.second;
      if (p.negative) v = -v;
      PutLittleEndian(out, static_cast<uint64_t>(v), 3);
      return out;
    }
    case ColumnType::kVector: {
      std::string_view rest = value;
      while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        float f = 0;
        std::from_chars(item.data(), item.data() + item.size(), f);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        PutLittleEndian(out, bits, 4);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
      return out;
    }
    default:
      return std::string(value);
  }
}

binlog::Cell MakeCell(const ColumnDef& column, std::string_view value, std::string& storage,
                      uint32_t index) {
  binlog::Cell cell;
  cell.column = &column;
  cell.index = index;
  if (value == "NULL") {
    cell.is_null = true;
    return cell;
  }
  storage = EncodeCellValue(column, value);
  cell.data = reinterpret_cast<const uint8_t*>(storage.data());
  cell.size = storage.size();
  return cell;
}

}  // namespace rowbridge::testing
