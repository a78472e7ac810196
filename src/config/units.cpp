#include "config/units.h"

#include <array>
#include <cctype>

#include "common/error.h"

namespace rowbridge::config {
namespace {

struct Unit {
  std::string_view name;
  uint64_t factor;
};

constexpr std::array<Unit, 9> kSizeUnits = {{
    {"tib", 1ULL << 40},
    {"gib", 1ULL << 30},
    {"mib", 1ULL << 20},
    {"kib", 1ULL << 10},
    {"tb", 1000ULL * 1000 * 1000 * 1000},
    {"gb", 1000ULL * 1000 * 1000},
    {"mb", 1000ULL * 1000},
    {"kb", 1000ULL},
    {"b", 1},
}};

// Ordered so that "ms" is tried before "m" and "s".
constexpr std::array<Unit, 5> kDurationUnits = {{
    {"ms", 1},
    {"s", 1000},
    {"m", 60 * 1000},
    {"h", 60 * 60 * 1000},
    {"d", 24 * 60 * 60 * 1000},
}};

// A decimal number held exactly: value = digits / 10^scale.
struct Decimal {
  uint64_t digits = 0;
  uint64_t scale = 1;
};

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Not `Lower`: suggest.cpp has one, and a unity build may compile both files as one.
char LowerUnitChar(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Reads [0-9]+(.[0-9]+)? at `pos`. Returns false if there is no number there.
bool ReadDecimal(std::string_view text, size_t& pos, Decimal& out, std::string_view kind) {
  size_t start = pos;
  Decimal d;
  bool fraction = false;
  size_t fraction_digits = 0;
  while (pos < text.size() && (IsDigit(text[pos]) || (text[pos] == '.' && !fraction))) {
    if (text[pos] == '.') {
      fraction = true;
      ++pos;
      continue;
    }
    if (fraction) {
      if (++fraction_digits > 9) {
        Fail(ErrorCode::kInvalidArgument, "{} \"{}\" has too many decimal places", kind, text);
      }
      if (__builtin_mul_overflow(d.scale, 10, &d.scale)) {
        Fail(ErrorCode::kInvalidArgument, "{} \"{}\" is too large", kind, text);
      }
    }
    if (__builtin_mul_overflow(d.digits, 10, &d.digits) ||
        __builtin_add_overflow(d.digits, static_cast<uint64_t>(text[pos] - '0'), &d.digits)) {
      Fail(ErrorCode::kInvalidArgument, "{} \"{}\" is too large", kind, text);
    }
    ++pos;
  }
  if (pos == start) return false;
  if (fraction && (fraction_digits == 0 || !IsDigit(text[start]))) {
    Fail(ErrorCode::kInvalidArgument, "{} \"{}\" is not a number (write e.g. 0.5, not .5 or 5.)",
         kind, text);
  }
  out = d;
  return true;
}

// digits * factor / scale, which must be whole.
uint64_t Scale(const Decimal& d, uint64_t factor, std::string_view text, std::string_view kind,
               std::string_view smallest) {
  uint64_t product;
  if (__builtin_mul_overflow(d.digits, factor, &product)) {
    Fail(ErrorCode::kInvalidArgument, "{} \"{}\" is too large", kind, text);
  }
  if (product % d.scale != 0) {
    Fail(ErrorCode::kInvalidArgument, "{} \"{}\" is not a whole number of {}", kind, text,
         smallest);
  }
  return product / d.scale;
}

bool MatchUnit(std::string_view rest, std::string_view unit) {
  if (rest.size() < unit.size()) return false;
  for (size_t i = 0; i < unit.size(); ++i) {
    if (LowerUnitChar(rest[i]) != unit[i]) return false;
  }
  return true;
}

}  // namespace

uint64_t ParseSize(std::string_view text) {
  size_t pos = 0;
  Decimal number;
  if (!ReadDecimal(text, pos, number, "size")) {
    Fail(ErrorCode::kInvalidArgument,
         "size \"{}\" must be a number of bytes with an optional unit, e.g. 64MiB, 1GiB, 500KB",
         text);
  }
  while (pos < text.size() && text[pos] == ' ') ++pos;
  std::string_view rest = text.substr(pos);
  if (rest.empty()) return Scale(number, 1, text, "size", "bytes");
  for (const Unit& unit : kSizeUnits) {
    if (rest.size() == unit.name.size() && MatchUnit(rest, unit.name)) {
      return Scale(number, unit.factor, text, "size", "bytes");
    }
  }
  Fail(ErrorCode::kInvalidArgument,
       "size \"{}\" has an unknown unit \"{}\" (use B, KiB, MiB, GiB, TiB or KB, MB, GB, TB)", text,
       rest);
}

std::chrono::milliseconds ParseDuration(std::string_view text) {
  if (text == "0") return std::chrono::milliseconds(0);
  size_t pos = 0;
  uint64_t total = 0;
  size_t last_unit_rank = kDurationUnits.size();
  bool any = false;
  while (pos < text.size() || !any) {
    Decimal number;
    if (!ReadDecimal(text, pos, number, "duration")) {
      Fail(ErrorCode::kInvalidArgument,
           "duration \"{}\" must be a number with a unit, e.g. 500ms, 10s, 2m, 1h30m", text);
    }
    std::string_view rest = text.substr(pos);
    const Unit* found = nullptr;
    size_t rank = 0;
    for (size_t i = 0; i < kDurationUnits.size(); ++i) {
      if (MatchUnit(rest, kDurationUnits[i].name)) {
        found = &kDurationUnits[i];
        rank = i;
        break;
      }
    }
    if (found == nullptr) {
      if (rest.empty()) {
        Fail(ErrorCode::kInvalidArgument,
             "duration \"{}\" needs a unit (ms, s, m, h or d), e.g. \"{}s\"", text, text);
      }
      Fail(ErrorCode::kInvalidArgument,
           "duration \"{}\" has an unknown unit at \"{}\" (use ms, s, m, h or d)", text, rest);
    }
    // Parts must go from large to small units, once each: "1h30m", not "30m1h".
    if (any && rank >= last_unit_rank) {
      Fail(ErrorCode::kInvalidArgument,
           "duration \"{}\" must list its units from largest to smallest, each once", text);
    }
    last_unit_rank = rank;
    pos += found->name.size();
    uint64_t part = Scale(number, found->factor, text, "duration", "milliseconds");
    if (__builtin_add_overflow(total, part, &total) || total > static_cast<uint64_t>(INT64_MAX)) {
      Fail(ErrorCode::kInvalidArgument, "duration \"{}\" is too large", text);
    }
    any = true;
  }
  return std::chrono::milliseconds(static_cast<int64_t>(total));
}

std::string FormatSize(uint64_t bytes) {
  static constexpr std::array<std::string_view, 9> kNames = {"TiB", "GiB", "MiB", "KiB", "TB",
                                                             "GB",  "MB",  "KB",  "B"};
  if (bytes == 0) return "0B";
  for (size_t i = 0; i < kSizeUnits.size(); ++i) {
    if (bytes % kSizeUnits[i].factor == 0) {
      return fmt::format("{}{}", bytes / kSizeUnits[i].factor, kNames[i]);
    }
  }
  return fmt::format("{}B", bytes);
}

std::string FormatDuration(std::chrono::milliseconds duration) {
  int64_t ms = duration.count();
  if (ms == 0) return "0s";
  if (ms < 0) return fmt::format("-{}", FormatDuration(std::chrono::milliseconds(-ms)));
  std::string out;
  for (size_t i = kDurationUnits.size(); i-- > 0;) {
    uint64_t factor = kDurationUnits[i].factor;
    if (static_cast<uint64_t>(ms) >= factor) {
      out += fmt::format("{}{}", static_cast<uint64_t>(ms) / factor, kDurationUnits[i].name);
      ms = static_cast<int64_t>(static_cast<uint64_t>(ms) % factor);
    }
  }
  return out;
}

}  // namespace rowbridge::config
