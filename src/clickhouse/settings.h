// Per-query ClickHouse settings (max_insert_block_size, insert_deduplicate, ...), as carried in
// the Query packet.
//
// Servers at revision 54429+ receive every setting as text with a flags word, so the value
// type does not matter. Older servers (Debian's 18.16) read each setting in its own binary type
// and reject the query if the bytes do not match, so each value is stored with the kind the
// server declares for that setting:
//   SetUInt  UInt64, Bool, Seconds, Milliseconds, MaxThreads settings  (VarUInt)
//   SetInt   Int64 settings, e.g. network_zstd_compression_level       (zig-zag VarInt)
//   SetText  String, Char, Float and enum settings (e.g. "lz4", "0.5")  (String)
// Every setting is sent "important": a server that does not know it fails the query instead of
// silently ignoring it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clickhouse/wire.h"

namespace rowbridge::clickhouse {

class QuerySettings {
 public:
  enum class Kind { kUInt, kInt, kText };
  struct Entry {
    std::string name;
    Kind kind;
    std::string text;  // the value as text, always filled
    uint64_t uint_value = 0;
    int64_t int_value = 0;
  };

  // Setting a name again replaces the earlier value. Names must be non-empty identifiers
  // (Error(kInvalidArgument) otherwise): an empty name would end the list on the wire.
  QuerySettings& SetUInt(std::string_view name, uint64_t value);
  QuerySettings& SetInt(std::string_view name, int64_t value);
  QuerySettings& SetText(std::string_view name, std::string_view value);
  // Every entry of `other`, replacing the entries of the same name here.
  QuerySettings& Apply(const QuerySettings& other);

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  const Entry* Find(std::string_view name) const;

  // Writes the settings list including its terminating empty name, in the format the
  // negotiated revision calls for.
  void Write(WireWriter& out, uint64_t revision) const;

 private:
  Entry& Slot(std::string_view name);
  std::vector<Entry> entries_;
};

}  // namespace rowbridge::clickhouse
