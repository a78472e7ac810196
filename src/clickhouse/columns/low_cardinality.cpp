#include "clickhouse/columns/low_cardinality.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace rowbridge::clickhouse {
namespace {

constexpr uint64_t kKeyVersionSharedWithAdditionalKeys = 1;
constexpr uint64_t kNeedGlobalDictionary = uint64_t{1} << 8;
constexpr uint64_t kHasAdditionalKeys = uint64_t{1} << 9;
constexpr uint64_t kNeedUpdateDictionary = uint64_t{1} << 10;
constexpr uint64_t kMaxDictionaryKeys = uint64_t{1} << 32;

size_t HashOf(std::string_view s) {
  return std::hash<std::string_view>{}(s);
}

template <typename Index>
void AppendIndexes(const std::vector<uint32_t>& keys, std::string& out) {
  size_t old_size = out.size();
  out.resize(old_size + keys.size() * sizeof(Index));
  char* p = out.data() + old_size;
  for (uint32_t key : keys) {
    auto narrowed = static_cast<Index>(key);
    std::memcpy(p, &narrowed, sizeof(Index));
    p += sizeof(Index);
  }
}

}  // namespace

ColumnLowCardinalityString::ColumnLowCardinalityString(bool nullable)
    : Column(nullable ? "LowCardinality(Nullable(String))" : "LowCardinality(String)"),
      nullable_(nullable) {
  Clear();
}

void ColumnLowCardinalityString::Clear() {
  keys_.clear();
  dictionary_.Clear();
  if (slots_.empty()) slots_.resize(64);
  std::fill(slots_.begin(), slots_.end(), 0);
  // Slot 0 of the nullable dictionary is NULL; it is never found by value.
  if (nullable_) dictionary_.Append({});
}

void ColumnLowCardinalityString::ReleaseMemory() {
  std::vector<uint32_t>().swap(keys_);
  std::vector<uint32_t>().swap(slots_);
  dictionary_.ReleaseMemory();
  Clear();  // the empty dictionary's slots (and NULL entry) again
}

void ColumnLowCardinalityString::Rehash(size_t slot_count) {
  slots_.assign(slot_count, 0);
  size_t mask = slot_count - 1;
  for (size_t index = nullable_ ? 1 : 0; index < dictionary_.Size(); ++index) {
    size_t slot = HashOf(dictionary_.At(index)) & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = static_cast<uint32_t>(index + 1);
  }
}

uint32_t ColumnLowCardinalityString::Intern(std::string_view value) {
  size_t mask = slots_.size() - 1;
  size_t slot = HashOf(value) & mask;
  while (uint32_t entry = slots_[slot]) {
    if (dictionary_.At(entry - 1) == value) return entry - 1;
    slot = (slot + 1) & mask;
  }
  if (dictionary_.Size() >= kMaxDictionaryKeys - 1)
    Fail(ErrorCode::kInternal, "{} column: dictionary exceeds 2^32 entries", type_name());
  auto index = static_cast<uint32_t>(dictionary_.Size());
  dictionary_.Append(value);
  slots_[slot] = index + 1;
  // Keep the load factor at or below one half.
  if (dictionary_.Size() * 2 > slots_.size()) Rehash(slots_.size() * 2);
  return index;
}

void ColumnLowCardinalityString::Append(std::string_view value) {
  keys_.push_back(Intern(value));
}

void ColumnLowCardinalityString::AppendNull() {
  if (!nullable_) Fail(ErrorCode::kInternal, "NULL appended to {} column", type_name());
  keys_.push_back(0);
}

void ColumnLowCardinalityString::AppendDefault() {
  if (nullable_) {
    AppendNull();
  } else {
    Append({});
  }
}

bool ColumnLowCardinalityString::IsNull(size_t row) const {
  CheckRow(row);
  return nullable_ && keys_[row] == 0;
}

std::string_view ColumnLowCardinalityString::At(size_t row) const {
  CheckRow(row);
  return dictionary_.At(keys_[row]);
}

void ColumnLowCardinalityString::WritePrefix(WireWriter& out) const {
  out.Fixed<uint64_t>(kKeyVersionSharedWithAdditionalKeys);
}

void ColumnLowCardinalityString::WriteData(WireWriter& out) const {
  // ClickHouse writes nothing at all for an empty LowCardinality column (e.g. inside an Array
  // whose rows are all empty).
  if (keys_.empty()) return;
  size_t keys = dictionary_.Size();
  uint64_t index_type = keys <= 0x100 ? 0 : keys <= 0x10000 ? 1 : 2;
  out.Fixed<uint64_t>(index_type | kHasAdditionalKeys | kNeedUpdateDictionary);
  out.Fixed<uint64_t>(keys);
  dictionary_.WriteData(out);
  out.Fixed<uint64_t>(keys_.size());
  switch (index_type) {
    case 0:
      AppendIndexes<uint8_t>(keys_, out.mutable_data());
      break;
    case 1:
      AppendIndexes<uint16_t>(keys_, out.mutable_data());
      break;
    default:
      AppendIndexes<uint32_t>(keys_, out.mutable_data());
      break;
  }
}

void ColumnLowCardinalityString::ReadPrefix(WireReader& in) {
  auto version = in.Fixed<uint64_t>();
  if (version != kKeyVersionSharedWithAdditionalKeys)
    Fail(ErrorCode::kCorruption, "{} column: unknown key serialization version {}", type_name(),
         version);
}

void ColumnLowCardinalityString::ReadData(WireReader& in, size_t rows) {
  ColumnString global;      // dictionary sent with the need-global-dictionary flag
  ColumnString additional;  // keys sent with the has-additional-keys flag
  while (rows > 0) {
    auto flags = in.Fixed<uint64_t>();
    uint64_t index_type = flags & 0xff;
    if ((flags & ~(0xffull | kNeedGlobalDictionary | kHasAdditionalKeys | kNeedUpdateDictionary)) !=
            0 ||
        index_type > 3)
      Fail(ErrorCode::kCorruption, "{} column: invalid index serialization type 0x{:x}",
           type_name(), flags);
    if (flags & kNeedGlobalDictionary) {
      auto count = in.Fixed<uint64_t>();
      if (count > kMaxDictionaryKeys)
        Fail(ErrorCode::kCorruption, "{} column: dictionary of {} keys", type_name(), count);
      global.Clear();
      global.ReadData(in, count);
    }
    additional.Clear();
    if (flags & kHasAdditionalKeys) {
      auto count = in.Fixed<uint64_t>();
      if (count > kMaxDictionaryKeys)
        Fail(ErrorCode::kCorruption, "{} column: {} additional keys", type_name(), count);
      additional.ReadData(in, count);
    }
    auto granule_rows = in.Fixed<uint64_t>();
    if (granule_rows == 0 || granule_rows > rows)
      Fail(ErrorCode::kCorruption, "{} column: {} index rows where {} remain", type_name(),
           granule_rows, rows);
    size_t index_bytes = size_t{1} << index_type;
    uint64_t key_count = global.Size() + additional.Size();
    for (uint64_t i = 0; i < granule_rows; ++i) {
      uint64_t index = 0;
      in.ReadExact(&index, index_bytes);  // little-endian into the low bytes
      if (index >= key_count)
        Fail(ErrorCode::kCorruption, "{} column: index {} at row {} beyond {} keys", type_name(),
             index, i, key_count);
      if (nullable_ && index == 0) {
        AppendNull();
      } else if (index < global.Size()) {
        Append(global.At(index));
      } else {
        Append(additional.At(index - global.Size()));
      }
    }
    rows -= granule_rows;
  }
}

void ColumnLowCardinalityString::AppendText(size_t row, std::string& out) const {
  if (IsNull(row)) {
    out.append("\\N");
  } else {
    out.append(At(row));
  }
}

}  // namespace rowbridge::clickhouse
