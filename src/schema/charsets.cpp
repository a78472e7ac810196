#include "schema/charsets.h"

#include <string>

#include "schema/sql_lexer.h"

namespace rowbridge::schema {

namespace {

struct Charset {
  std::string_view name;
  uint8_t max_bytes;
  uint32_t default_collation;
  uint32_t bin_collation;
};

constexpr Charset kCharsets[] = {
    {"big5", 2, 1, 84},     {"dec8", 1, 3, 69},       {"cp850", 1, 4, 80},
    {"hp8", 1, 6, 72},      {"koi8r", 1, 7, 74},      {"latin1", 1, 8, 47},
    {"latin2", 1, 9, 77},   {"swe7", 1, 10, 82},      {"ascii", 1, 11, 65},
    {"ujis", 3, 12, 91},    {"sjis", 2, 13, 88},      {"hebrew", 1, 16, 71},
    {"tis620", 1, 18, 89},  {"euckr", 2, 19, 85},     {"koi8u", 1, 22, 75},
    {"gb2312", 2, 24, 86},  {"greek", 1, 25, 70},     {"cp1250", 1, 26, 66},
    {"gbk", 2, 28, 87},     {"latin5", 1, 30, 78},    {"armscii8", 1, 32, 64},
    {"utf8mb3", 3, 33, 83}, {"ucs2", 2, 35, 90},      {"cp866", 1, 36, 68},
    {"keybcs2", 1, 37, 73}, {"macce", 1, 38, 43},     {"macroman", 1, 39, 53},
    {"cp852", 1, 40, 81},   {"latin7", 1, 41, 79},    {"utf8mb4", 4, 45, 46},
    {"cp1251", 1, 51, 50},  {"utf16", 4, 54, 55},     {"utf16le", 4, 56, 62},
    {"cp1256", 1, 57, 67},  {"cp1257", 1, 59, 58},    {"utf32", 4, 60, 61},
    {"binary", 1, 63, 63},  {"geostd8", 1, 92, 93},   {"cp932", 2, 95, 96},
    {"eucjpms", 3, 97, 98}, {"gb18030", 4, 248, 249},
};

constexpr uint32_t kMysqlUtf8mb4Default = 255;  // utf8mb4_0900_ai_ci

struct NamedCollation {
  std::string_view name;
  uint32_t id;
};

// Single-byte and CJK collations other than each charset's default and _bin.
constexpr NamedCollation kNamed[] = {
    {"latin2_czech_cs", 2},      {"latin1_german1_ci", 5},    {"cp1251_bulgarian_ci", 14},
    {"latin1_danish_ci", 15},    {"latin7_estonian_cs", 20},  {"latin2_hungarian_ci", 21},
    {"cp1251_ukrainian_ci", 23}, {"latin2_croatian_ci", 27},  {"cp1257_lithuanian_ci", 29},
    {"latin1_german2_ci", 31},   {"cp1250_czech_cs", 34},     {"latin7_general_ci", 41},
    {"latin7_general_cs", 42},   {"cp1250_croatian_ci", 44},  {"latin1_general_ci", 48},
    {"latin1_general_cs", 49},   {"cp1251_general_ci", 51},   {"cp1251_general_cs", 52},
    {"latin1_spanish_ci", 94},   {"cp1250_polish_ci", 99},    {"utf8mb3_general_mysql500_ci", 223},
    {"utf8mb3_tolower_ci", 76},  {"utf8mb4_0900_ai_ci", 255}, {"utf8mb4_0900_as_cs", 278},
    {"utf8mb4_0900_as_ci", 305}, {"utf8mb4_0900_bin", 309},   {"gb18030_unicode_520_ci", 250},
};

// The UCA collations come in the same order for each Unicode character set.
constexpr std::string_view kUcaSuffixes[] = {
    "unicode_ci", "icelandic_ci", "latvian_ci",     "romanian_ci",  "slovenian_ci",
    "polish_ci",  "estonian_ci",  "spanish_ci",     "swedish_ci",   "turkish_ci",
    "czech_ci",   "danish_ci",    "lithuanian_ci",  "slovak_ci",    "spanish2_ci",
    "roman_ci",   "persian_ci",   "esperanto_ci",   "hungarian_ci", "sinhala_ci",
    "german2_ci", "croatian_ci",  "unicode_520_ci", "vietnamese_ci"};

struct UcaFamily {
  std::string_view charset;
  uint32_t first_id;
};

constexpr UcaFamily kUcaFamilies[] = {
    {"utf16", 101}, {"ucs2", 128}, {"utf32", 160}, {"utf8mb3", 192}, {"utf8mb4", 224}};

// MariaDB's NO PAD variants are the PAD SPACE id + 1024.
constexpr uint32_t kNopadOffset = 1024;

std::string NormalizeUtf8(std::string_view name) {
  std::string s = ToLowerAscii(name);
  if (s == "utf8") return "utf8mb3";
  if (s.rfind("utf8_", 0) == 0) return "utf8mb3" + s.substr(4);
  return s;
}

const Charset* FindCharset(std::string_view name) {
  for (const Charset& c : kCharsets) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const Charset* CharsetOfId(uint32_t id) {
  if (id >= kNopadOffset && id < 2 * kNopadOffset) id -= kNopadOffset;
  for (const Charset& c : kCharsets) {
    if (c.default_collation == id || c.bin_collation == id) return &c;
  }
  if (id == kMysqlUtf8mb4Default || (id >= 256 && id <= 323)) return FindCharset("utf8mb4");
  for (const UcaFamily& f : kUcaFamilies) {
    if (id >= f.first_id && id < f.first_id + std::size(kUcaSuffixes)) {
      return FindCharset(f.charset);
    }
  }
  for (const NamedCollation& n : kNamed) {
    if (n.id == id) return FindCharset(n.name.substr(0, n.name.find('_')));
  }
  return nullptr;
}

CollationInfo Info(uint32_t id, const Charset& charset) {
  return CollationInfo{id, charset.name, charset.max_bytes};
}

std::optional<uint32_t> ExactId(const std::string& name) {
  for (const Charset& c : kCharsets) {
    const std::string prefix = std::string(c.name) + "_";
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string_view rest = std::string_view(name).substr(prefix.size());
    if (rest == "bin") return c.bin_collation;
    if (rest == "nopad_bin") return c.bin_collation + kNopadOffset;
  }
  for (const NamedCollation& n : kNamed) {
    if (n.name == name) return n.id;
  }
  for (const UcaFamily& f : kUcaFamilies) {
    const std::string prefix = std::string(f.charset) + "_";
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string_view rest = std::string_view(name).substr(prefix.size());
    for (size_t i = 0; i < std::size(kUcaSuffixes); ++i) {
      if (rest == kUcaSuffixes[i]) return f.first_id + static_cast<uint32_t>(i);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<CollationInfo> DefaultCollationOf(std::string_view charset_name,
                                                ServerFlavor flavor) {
  const Charset* c = FindCharset(NormalizeUtf8(charset_name));
  if (c == nullptr) return std::nullopt;
  uint32_t id = c->default_collation;
  if (c->name == "utf8mb4" && flavor == ServerFlavor::kMysql) id = kMysqlUtf8mb4Default;
  return Info(id, *c);
}

std::optional<CollationInfo> CollationByName(std::string_view collation, ServerFlavor flavor) {
  const std::string name = NormalizeUtf8(collation);
  if (name == "binary") return Info(kBinaryCollation, *FindCharset("binary"));
  // The charset is the longest known prefix before a "_".
  const Charset* charset = nullptr;
  for (const Charset& c : kCharsets) {
    if (name.size() > c.name.size() && name.compare(0, c.name.size(), c.name) == 0 &&
        name[c.name.size()] == '_' &&
        (charset == nullptr || c.name.size() > charset->name.size())) {
      charset = &c;
    }
  }
  if (charset == nullptr) return std::nullopt;
  if (std::optional<uint32_t> id = ExactId(name)) return Info(*id, *charset);
  // Default collations are named <charset>_<something>_ci; match by id of the default name.
  static constexpr std::string_view kDefaultNames[] = {
      "big5_chinese_ci",     "dec8_swedish_ci",    "cp850_general_ci",    "hp8_english_ci",
      "koi8r_general_ci",    "latin1_swedish_ci",  "latin2_general_ci",   "swe7_swedish_ci",
      "ascii_general_ci",    "ujis_japanese_ci",   "sjis_japanese_ci",    "hebrew_general_ci",
      "tis620_thai_ci",      "euckr_korean_ci",    "koi8u_general_ci",    "gb2312_chinese_ci",
      "greek_general_ci",    "cp1250_general_ci",  "gbk_chinese_ci",      "latin5_turkish_ci",
      "armscii8_general_ci", "utf8mb3_general_ci", "ucs2_general_ci",     "cp866_general_ci",
      "keybcs2_general_ci",  "macce_general_ci",   "macroman_general_ci", "cp852_general_ci",
      "latin7_general_ci",   "utf8mb4_general_ci", "cp1251_general_ci",   "utf16_general_ci",
      "utf16le_general_ci",  "cp1256_general_ci",  "cp1257_general_ci",   "utf32_general_ci",
      "geostd8_general_ci",  "cp932_japanese_ci",  "eucjpms_japanese_ci", "gb18030_chinese_ci"};
  for (std::string_view d : kDefaultNames) {
    if (name == d) return Info(charset->default_collation, *charset);
    // MariaDB NO PAD variant of a default: <charset>_<x>_nopad_ci.
    if (name.size() == d.size() + 6 &&
        name.compare(0, d.size() - 3, d.substr(0, d.size() - 3)) == 0 &&
        name.compare(d.size() - 3, 9, "_nopad_ci") == 0) {
      return Info(charset->default_collation + kNopadOffset, *charset);
    }
  }
  return DefaultCollationOf(charset->name, flavor);
}

CollationInfo CollationById(uint32_t id) {
  if (const Charset* c = CharsetOfId(id)) return Info(id, *c);
  return CollationInfo{id, {}, 4};
}

uint32_t BinCollationOf(uint32_t collation_id) {
  if (const Charset* c = CharsetOfId(collation_id)) return c->bin_collation;
  return collation_id;
}

}  // namespace rowbridge::schema
