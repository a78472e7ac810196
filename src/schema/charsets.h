// Character sets and collations as DDL names them, mapped to the collation ids that TABLE_MAP
// and information_schema use (binlog::ColumnDef::charset) and to the bytes per character that
// turn CHAR(n)/VARCHAR(n) into the byte lengths row events are laid out by.
//
// The table covers the default collation of every MySQL/MariaDB character set and the common
// named collations. A collation name that is not in it (MariaDB's uca1400 family, say) resolves
// to its character set's default collation: the id then differs from the server's, but the
// character set, and so binary-vs-text and the byte length, are right, which is all the decoder
// and the type mapping look at.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rowbridge::schema {

enum class ServerFlavor : uint8_t { kMysql, kMariadb };

inline constexpr uint32_t kBinaryCollation = 63;

struct CollationInfo {
  uint32_t id = 0;
  std::string_view charset;  // "utf8mb4", "latin1", "binary", ... ("utf8mb3" for utf8)
  uint8_t max_bytes_per_char = 1;
};

// The default collation of a character set (utf8mb4: utf8mb4_0900_ai_ci on MySQL,
// utf8mb4_general_ci on MariaDB). "utf8" means utf8mb3. nullopt for an unknown name.
std::optional<CollationInfo> DefaultCollationOf(std::string_view charset, ServerFlavor flavor);

// A collation by name ("utf8mb4_bin"; "utf8_general_ci" = "utf8mb3_general_ci"), falling back to
// its character set's default as described above. nullopt when not even the character set is
// known.
std::optional<CollationInfo> CollationByName(std::string_view collation, ServerFlavor flavor);

// A collation by id; for an unknown id the charset is empty and 4 bytes per character are
// assumed (the widest, so lengths are never underestimated).
CollationInfo CollationById(uint32_t id);

// The binary ("_bin") collation of the character set of `collation_id` (the BINARY attribute of
// CHAR/VARCHAR/TEXT).
uint32_t BinCollationOf(uint32_t collation_id);

}  // namespace rowbridge::schema
