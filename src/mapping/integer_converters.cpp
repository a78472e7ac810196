#include "mapping/integer_converters.h"

#include <cstring>
#include <limits>
#include <type_traits>

#include "binlog/value_decoder.h"
#include "clickhouse/columns/decimal.h"
#include "clickhouse/columns/enum.h"
#include "clickhouse/columns/numeric.h"
#include "mapping/decimal_converters.h"
#include "mapping/text_sink.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using binlog::ColumnType;
using clickhouse::Column;
using clickhouse::Int128;
using clickhouse::TypeCode;
using clickhouse::UInt128;

// How a converter reads its cell; kBitSigned is BIT(n) read as an n-bit two's complement number.
enum class Reader { kSigned, kUnsigned, kBit, kBitSigned, kYear, kEnumIndex, kSetBits };

template <Reader R>
inline Int128 Read(const Converter& c, const Cell& cell) {
  if constexpr (R == Reader::kSigned) return binlog::CellSignedInteger(cell);
  if constexpr (R == Reader::kUnsigned) return binlog::CellUnsignedInteger(cell);
  if constexpr (R == Reader::kBit) return binlog::CellBit(cell);
  if constexpr (R == Reader::kBitSigned) {
    const uint64_t bits = binlog::CellBit(cell);
    const unsigned width = c.source.meta;
    if (width >= 64) return static_cast<int64_t>(bits);
    const uint64_t sign = uint64_t{1} << (width - 1);
    return static_cast<int64_t>((bits ^ sign) - sign);
  }
  if constexpr (R == Reader::kYear) return binlog::CellYear(cell);
  if constexpr (R == Reader::kEnumIndex) return binlog::CellEnumIndex(cell);
  if constexpr (R == Reader::kSetBits) return binlog::CellSetBits(cell);
}

[[gnu::noinline]] Int128 ClampInteger(const Converter& c, const Cell& cell, Int128 v) {
  const bool below = v < c.min;
  const Int128 bound = below ? c.min : c.max;
  const RangeRule rule =
      below && c.min == 0 ? RangeRule::kNegativeToUnsigned : RangeRule::kIntegerOverflow;
  TextBuffer bound_text;
  FormatInteger(bound, bound_text);
  c.OutOfRange(rule, cell,
               fmt::format("{} the target's {} {}", below ? "below" : "above",
                           below ? "minimum" : "maximum", bound_text.view()),
               bound_text.view());
  return bound;
}

template <Reader R>
inline Int128 ReadChecked(const Converter& c, const Cell& cell) {
  Int128 v = Read<R>(c, cell);
  if (v < c.min || v > c.max) [[unlikely]]
    v = ClampInteger(c, cell, v);
  return v;
}

template <Reader R, typename T>
void ToNumber(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnNumber<T>&>(column).Append(static_cast<T>(ReadChecked<R>(c, cell)));
}

// For sources whose every value fits the target (chosen at plan time), so no range check.
template <Reader R, typename T>
void ToNumberInRange(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnNumber<T>&>(column).Append(static_cast<T>(Read<R>(c, cell)));
}

// A W-byte little-endian integer, with loads of the integer's own size (little-endian host:
// x86-64, aarch64). Three bytes are two loads, not a copy into an 8-byte temporary, which would
// stall on store forwarding.
template <size_t W>
inline uint64_t LoadFixedWidth(const uint8_t* p) {
  if constexpr (W == 1) {
    return p[0];
  } else if constexpr (W == 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  } else if constexpr (W == 3) {
    uint16_t low;
    std::memcpy(&low, p, 2);
    return low | (uint64_t{p[2]} << 16);
  } else if constexpr (W == 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  } else {
    static_assert(W == 8);
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
}

// The same for a W-byte integer column whose values all fit T: a fixed-size load instead of
// the width lookup and byte loop of the generic readers.
template <size_t W, bool Signed, typename T>
void ToNumberFixedWidth(const Converter&, const Cell& cell, Column& column, ConvertScratch&) {
  if (cell.is_null || cell.size < W) [[unlikely]] {
    // The generic reader throws the error that names the cell.
    static_cast<clickhouse::ColumnNumber<T>&>(column).Append(
        static_cast<T>(Signed ? binlog::CellSignedInteger(cell)
                              : static_cast<int64_t>(binlog::CellUnsignedInteger(cell))));
    return;
  }
  const uint64_t v = LoadFixedWidth<W>(cell.data);
  if constexpr (Signed && W < 8) {
    constexpr unsigned kShift = 64 - 8 * W;
    static_cast<clickhouse::ColumnNumber<T>&>(column).Append(
        static_cast<T>(static_cast<int64_t>(v << kShift) >> kShift));
  } else {
    static_cast<clickhouse::ColumnNumber<T>&>(column).Append(static_cast<T>(v));
  }
}

template <bool Signed, typename T>
ConvertFn FixedWidthFn(size_t width) {
  switch (width) {
    case 1:
      return &ToNumberFixedWidth<1, Signed, T>;
    case 2:
      return &ToNumberFixedWidth<2, Signed, T>;
    case 3:
      return &ToNumberFixedWidth<3, Signed, T>;
    case 4:
      return &ToNumberFixedWidth<4, Signed, T>;
    case 8:
      return &ToNumberFixedWidth<8, Signed, T>;
    default:
      return nullptr;
  }
}

// The range of values a source can hold, when it is known from the type alone.
bool SourceRange(const Converter& c, Reader r, Int128& low, Int128& high) {
  const unsigned bits = static_cast<unsigned>(binlog::IntegerWidth(c.source.type)) * 8;
  switch (r) {
    case Reader::kSigned:
      if (bits == 0 || bits > 64) return false;
      low = -(Int128{1} << (bits - 1));
      high = (Int128{1} << (bits - 1)) - 1;
      return true;
    case Reader::kUnsigned:
      if (bits == 0 || bits > 64) return false;
      low = 0;
      high = (Int128{1} << bits) - 1;
      return true;
    case Reader::kBitSigned:
      if (c.source.meta == 0 || c.source.meta > 64) return false;
      low = -(Int128{1} << (c.source.meta - 1));
      high = (Int128{1} << (c.source.meta - 1)) - 1;
      return true;
    default:
      return false;
  }
}

// ToNumber<R, T>, or ToNumberInRange<R, T> when the source cannot leave the range SetRange set.
// A source of the target's own width needs no conversion at all: the row loop stores its bytes.
template <typename T>
constexpr DirectStore kDirectStoreOf = std::is_same_v<T, int8_t>     ? DirectStore::kInt8
                                       : std::is_same_v<T, uint8_t>  ? DirectStore::kUInt8
                                       : std::is_same_v<T, int16_t>  ? DirectStore::kInt16
                                       : std::is_same_v<T, uint16_t> ? DirectStore::kUInt16
                                       : std::is_same_v<T, int32_t>  ? DirectStore::kInt32
                                       : std::is_same_v<T, uint32_t> ? DirectStore::kUInt32
                                       : std::is_same_v<T, int64_t>  ? DirectStore::kInt64
                                       : std::is_same_v<T, uint64_t> ? DirectStore::kUInt64
                                                                     : DirectStore::kNone;

template <Reader R, typename T>
ConvertFn NumberFn(Converter& c) {
  Int128 low = 0, high = 0;
  if (!SourceRange(c, R, low, high) || low < c.min || high > c.max) return &ToNumber<R, T>;
  if constexpr (R == Reader::kSigned || R == Reader::kUnsigned) {
    const size_t width = binlog::IntegerWidth(c.source.type);
    if (ConvertFn fn = FixedWidthFn<R == Reader::kSigned, T>(width)) {
      if (width == sizeof(T)) c.direct = kDirectStoreOf<T>;
      return fn;
    }
  }
  return &ToNumberInRange<R, T>;
}

template <Reader R>
void ToWide(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnWide256&>(column).Append(
      clickhouse::WideFromInt128(ReadChecked<R>(c, cell)));
}

template <Reader R, typename F>
void ToFloat(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnNumber<F>&>(column).Append(static_cast<F>(Read<R>(c, cell)));
}

template <Reader R, typename T>
void ToDecimal(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  StoreDecimal<T>(c, cell, column, clickhouse::WideFromInt128(Read<R>(c, cell)));
}

template <Reader R>
void ToBool(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnBool&>(column).Append(Read<R>(c, cell) != 0);
}

template <Reader R>
void ToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  const Int128 v = Read<R>(c, cell);
  if constexpr (R == Reader::kYear)
    text.Digits(static_cast<uint64_t>(v), 4);
  else
    FormatInteger(v, text);
  PutText(c, cell, column, text.view());
}

// Bits needed to hold every value of the source exactly (magnitude bits for signed sources).
unsigned ValueBits(const Converter& c, Reader r) {
  const auto width = static_cast<unsigned>(binlog::IntegerWidth(c.source.type)) * 8;
  switch (r) {
    case Reader::kSigned:
      return width - 1;
    case Reader::kUnsigned:
      return width;
    case Reader::kBit:
    case Reader::kBitSigned:
      return c.source.meta;
    case Reader::kYear:
      return 12;
    case Reader::kEnumIndex:
      return 16;
    case Reader::kSetBits:
      return c.source.set_values.empty() ? c.source.meta * 8
                                         : static_cast<unsigned>(c.source.set_values.size());
  }
  return 64;
}

template <typename T>
void SetRange(Converter& c) {
  c.min = std::numeric_limits<T>::min();
  c.max = std::numeric_limits<T>::max();
}

template <Reader R>
bool Choose(Converter& c, std::string& why_not) {
  if (c.text_sink != TextSink::kNone) {
    c.fn = &ToText<R>;
    return true;
  }
  const Int128 int128_max = static_cast<Int128>(~static_cast<UInt128>(0) >> 1);
  switch (c.target.code) {
    case TypeCode::kInt8:
      SetRange<int8_t>(c);
      c.fn = NumberFn<R, int8_t>(c);
      return true;
    case TypeCode::kInt16:
      SetRange<int16_t>(c);
      c.fn = NumberFn<R, int16_t>(c);
      return true;
    case TypeCode::kInt32:
      SetRange<int32_t>(c);
      c.fn = NumberFn<R, int32_t>(c);
      return true;
    case TypeCode::kInt64:
      SetRange<int64_t>(c);
      c.fn = NumberFn<R, int64_t>(c);
      return true;
    case TypeCode::kUInt8:
      SetRange<uint8_t>(c);
      c.fn = NumberFn<R, uint8_t>(c);
      return true;
    case TypeCode::kUInt16:
      SetRange<uint16_t>(c);
      c.fn = NumberFn<R, uint16_t>(c);
      return true;
    case TypeCode::kUInt32:
      SetRange<uint32_t>(c);
      c.fn = NumberFn<R, uint32_t>(c);
      return true;
    case TypeCode::kUInt64:
      SetRange<uint64_t>(c);
      c.fn = NumberFn<R, uint64_t>(c);
      return true;
    // Sources never exceed 64 bits, so the 128/256-bit bounds only matter for the sign.
    case TypeCode::kInt128:
    case TypeCode::kInt256:
      c.min = -int128_max - 1;
      c.max = int128_max;
      c.fn = c.target.code == TypeCode::kInt128 ? &ToNumber<R, clickhouse::Int128> : &ToWide<R>;
      return true;
    case TypeCode::kUInt128:
    case TypeCode::kUInt256:
      c.min = 0;
      c.max = int128_max;
      c.fn = c.target.code == TypeCode::kUInt128 ? &ToNumber<R, clickhouse::UInt128> : &ToWide<R>;
      return true;
    case TypeCode::kFloat32:
    case TypeCode::kFloat64: {
      const unsigned limit = c.target.code == TypeCode::kFloat32 ? 24 : 53;
      if (ValueBits(c, R) > limit) {
        why_not = fmt::format("{} holds values that {} cannot represent exactly", c.source_type,
                              c.target.name);
        return false;
      }
      c.fn = c.target.code == TypeCode::kFloat32 ? &ToFloat<R, float> : &ToFloat<R, double>;
      return true;
    }
    case TypeCode::kDecimal32:
    case TypeCode::kDecimal64:
    case TypeCode::kDecimal128:
    case TypeCode::kDecimal256:
      if (!SetupDecimalTarget(c, 0, why_not)) return false;
      switch (c.target.code) {
        case TypeCode::kDecimal32:
          c.fn = &ToDecimal<R, int32_t>;
          break;
        case TypeCode::kDecimal64:
          c.fn = &ToDecimal<R, int64_t>;
          break;
        case TypeCode::kDecimal128:
          c.fn = &ToDecimal<R, clickhouse::Int128>;
          break;
        default:
          c.fn = &ToDecimal<R, clickhouse::Wide256>;
          break;
      }
      return true;
    case TypeCode::kBool: {
      const bool tiny =
          (R == Reader::kSigned || R == Reader::kUnsigned) && c.source.type == ColumnType::kTiny;
      const bool bit1 = (R == Reader::kBit) && c.source.meta == 1;
      if (!tiny && !bit1) {
        why_not = "only TINYINT and BIT(1) go into Bool";
        return false;
      }
      c.fn = &ToBool<R>;
      return true;
    }
    default:
      why_not = fmt::format("{} does not take integers", c.target.name);
      return false;
  }
}

}  // namespace

bool SetIntegerTargetRange(Converter& c) {
  const Int128 int128_max = static_cast<Int128>(~static_cast<UInt128>(0) >> 1);
  switch (c.target.code) {
    case TypeCode::kInt8:
      SetRange<int8_t>(c);
      return true;
    case TypeCode::kInt16:
      SetRange<int16_t>(c);
      return true;
    case TypeCode::kInt32:
      SetRange<int32_t>(c);
      return true;
    case TypeCode::kInt64:
      SetRange<int64_t>(c);
      return true;
    case TypeCode::kUInt8:
      SetRange<uint8_t>(c);
      return true;
    case TypeCode::kUInt16:
      SetRange<uint16_t>(c);
      return true;
    case TypeCode::kUInt32:
      SetRange<uint32_t>(c);
      return true;
    case TypeCode::kUInt64:
      SetRange<uint64_t>(c);
      return true;
    case TypeCode::kInt128:
    case TypeCode::kInt256:
      c.min = -int128_max - 1;
      c.max = int128_max;
      return true;
    case TypeCode::kUInt128:
    case TypeCode::kUInt256:
      c.min = 0;
      c.max = int128_max;
      return true;
    default:
      return false;
  }
}

void StoreInteger(const Converter& c, const Cell& cell, Column& column, Int128 v) {
  if (v < c.min || v > c.max) [[unlikely]]
    v = ClampInteger(c, cell, v);
  switch (c.target.code) {
    case TypeCode::kInt8:
      static_cast<clickhouse::ColumnInt8&>(column).Append(static_cast<int8_t>(v));
      return;
    case TypeCode::kInt16:
      static_cast<clickhouse::ColumnInt16&>(column).Append(static_cast<int16_t>(v));
      return;
    case TypeCode::kInt32:
      static_cast<clickhouse::ColumnInt32&>(column).Append(static_cast<int32_t>(v));
      return;
    case TypeCode::kInt64:
      static_cast<clickhouse::ColumnInt64&>(column).Append(static_cast<int64_t>(v));
      return;
    case TypeCode::kUInt8:
      static_cast<clickhouse::ColumnUInt8&>(column).Append(static_cast<uint8_t>(v));
      return;
    case TypeCode::kUInt16:
      static_cast<clickhouse::ColumnUInt16&>(column).Append(static_cast<uint16_t>(v));
      return;
    case TypeCode::kUInt32:
      static_cast<clickhouse::ColumnUInt32&>(column).Append(static_cast<uint32_t>(v));
      return;
    case TypeCode::kUInt64:
      static_cast<clickhouse::ColumnUInt64&>(column).Append(static_cast<uint64_t>(v));
      return;
    case TypeCode::kInt128:
      static_cast<clickhouse::ColumnInt128&>(column).Append(v);
      return;
    case TypeCode::kUInt128:
      static_cast<clickhouse::ColumnUInt128&>(column).Append(static_cast<clickhouse::UInt128>(v));
      return;
    case TypeCode::kInt256:
    case TypeCode::kUInt256:
      static_cast<clickhouse::ColumnWide256&>(column).Append(clickhouse::WideFromInt128(v));
      return;
    default:
      Fail(ErrorCode::kInternal, "{}: StoreInteger into non-integer type {}", c.column,
           c.target.name);
  }
}

IntegerSource IntegerSourceOf(const binlog::ColumnDef& column) {
  switch (column.type) {
    case ColumnType::kBit:
      return IntegerSource::kBit;
    case ColumnType::kYear:
      return IntegerSource::kYear;
    case ColumnType::kEnum:
      return IntegerSource::kEnumIndex;
    case ColumnType::kSet:
      return IntegerSource::kSetBits;
    default:
      return column.is_unsigned ? IntegerSource::kUnsigned : IntegerSource::kSigned;
  }
}

bool SelectIntegerConverter(Converter& c, IntegerSource source, std::string& why_not) {
  switch (source) {
    case IntegerSource::kSigned:
      return Choose<Reader::kSigned>(c, why_not);
    case IntegerSource::kUnsigned:
      return Choose<Reader::kUnsigned>(c, why_not);
    case IntegerSource::kBit: {
      const unsigned n = c.source.meta;
      if (n < 1 || n > 64) {
        why_not = fmt::format("BIT width {} is outside 1..64", n);
        return false;
      }
      // BIT(n) into a signed integer of exactly n bits: the bits are the value.
      const TypeCode t = c.target.code;
      const bool same_width_signed =
          c.text_sink == TextSink::kNone &&
          ((t == TypeCode::kInt8 && n == 8) || (t == TypeCode::kInt16 && n == 16) ||
           (t == TypeCode::kInt32 && n == 32) || (t == TypeCode::kInt64 && n == 64));
      c.bit_cast_signed = same_width_signed;
      return same_width_signed ? Choose<Reader::kBitSigned>(c, why_not)
                               : Choose<Reader::kBit>(c, why_not);
    }
    case IntegerSource::kYear:
      return Choose<Reader::kYear>(c, why_not);
    case IntegerSource::kEnumIndex:
      return Choose<Reader::kEnumIndex>(c, why_not);
    case IntegerSource::kSetBits:
      return Choose<Reader::kSetBits>(c, why_not);
  }
  return false;
}

}  // namespace rowbridge::mapping
