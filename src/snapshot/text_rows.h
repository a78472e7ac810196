// TextRows: the rows of a chunk's SELECT kept as their fields' bytes (opaque: text-protocol text or
// binary-protocol values alike), packed into one buffer, so a chunk can be read again (when its
// binlog window touched it) without holding a Cell per value.
// A field costs its bytes plus one length byte (five above 253 bytes); Clear() keeps the capacity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::snapshot {

class TextRows {
 public:
  void Clear() {
    bytes_.clear();
    starts_.clear();
  }
  // Appends `row`'s first `fields` fields, read with row.IsNull(i) and row.Field(i) (e.g. a
  // mysql::ResultSet or mysql::BinaryResultSet positioned on a row).
  template <typename Row>
  void Add(const Row& row, size_t fields) {
    starts_.push_back(bytes_.size());
    for (size_t i = 0; i < fields; ++i) {
      if (row.IsNull(i)) {
        bytes_.push_back(static_cast<char>(kNull));
      } else {
        AppendField(row.Field(i));
      }
    }
  }
  size_t size() const { return starts_.size(); }
  size_t bytes() const { return bytes_.size(); }
  // Row `i`'s fields into `fields` (resized to `count`, the count it was added with); the views
  // are valid until the next Add or Clear.
  void Get(size_t i, size_t count, std::vector<std::optional<std::string_view>>& fields) const;

 private:
  static constexpr uint8_t kNull = 0xFF;
  static constexpr uint8_t kLong = 0xFE;  // a 4-byte length follows
  void AppendField(std::string_view text);

  std::string bytes_;
  std::vector<size_t> starts_;
};

}  // namespace rowbridge::snapshot
