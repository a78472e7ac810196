#include "clickhouse/columns/string.h"

#include <algorithm>
#include <cstring>

namespace rowbridge::clickhouse {
namespace {

// Largest single string we accept from the wire; protects against a corrupt length.
constexpr uint64_t kMaxStringBytes = uint64_t{1} << 30;

// Writes v as a VarUInt at p (room for 10 bytes) and returns the end.
inline char* PutVarUInt(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

}  // namespace

ColumnString::ColumnString() : Column("String") {}

char* ColumnString::PutLongVarUInt(char* p, uint64_t v) {
  return PutVarUInt(p, v);
}

namespace {

// The record at `pos` (our own encoding, so the VarUInt is well formed): its bytes start at the
// returned offset, `length` long.
size_t ReadRecord(const ByteBuffer& wire, size_t pos, uint64_t& length) {
  length = 0;
  for (int shift = 0;; shift += 7) {
    auto byte = static_cast<uint8_t>(wire.data()[pos++]);
    length |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
  }
  return pos;
}

}  // namespace

void ColumnString::IndexRows() const {
  // Grown geometrically: a LowCardinality dictionary reads its newest entry after each append,
  // and an exact reserve would copy the whole index every time (quadratic in the entries).
  if (ends_.capacity() < rows_) ends_.reserve(std::max<size_t>(rows_, ends_.capacity() * 2));
  size_t pos = ends_.empty() ? 0 : ends_.back();
  while (ends_.size() < rows_) {
    uint64_t length = 0;
    pos = ReadRecord(wire_, pos, length) + length;
    ends_.push_back(pos);
  }
}

std::string_view ColumnString::At(size_t row) const {
  CheckRow(row);
  if (ends_.size() != rows_) IndexRows();
  uint64_t length = 0;
  const size_t start = ReadRecord(wire_, row == 0 ? 0 : ends_[row - 1], length);
  return wire_.view().substr(start, length);
}

void ColumnString::Clear() {
  wire_.clear();
  rows_ = 0;
  ends_.clear();
}

void ColumnString::ReleaseMemory() {
  wire_.release();
  rows_ = 0;
  std::vector<uint64_t>().swap(ends_);
}

void ColumnString::ReadData(WireReader& in, size_t rows) {
  for (size_t i = 0; i < rows; ++i) {
    uint64_t length = in.VarUInt();
    if (length > kMaxStringBytes)
      Fail(ErrorCode::kCorruption, "ClickHouse String column: row {} claims {} bytes", i, length);
    char* const start = wire_.Room(10);
    wire_.Commit(static_cast<size_t>(PutVarUInt(start, length) - start));
    // Grows as the bytes arrive, so a corrupt length fails on the truncated read instead of
    // first allocating whatever it claims.
    constexpr uint64_t kChunkBytes = uint64_t{1} << 20;
    for (uint64_t remaining = length; remaining > 0;) {
      size_t n = static_cast<size_t>(std::min(remaining, kChunkBytes));
      in.ReadExact(wire_.Room(n), n);
      wire_.Commit(n);
      remaining -= n;
    }
    ++rows_;
  }
}

void ColumnString::AppendText(size_t row, std::string& out) const {
  out.append(At(row));
}

ColumnFixedString::ColumnFixedString(size_t width)
    : Column("FixedString(" + std::to_string(width) + ")"), width_(width) {
  if (width == 0) Fail(ErrorCode::kInvalidArgument, "FixedString width must be positive");
}

void ColumnFixedString::Append(std::string_view value) {
  if (value.size() > width_)
    Fail(ErrorCode::kConversion, "value of {} bytes does not fit {}", value.size(), type_name());
  data_.append(value.data(), value.size());
  data_.append(width_ - value.size(), '\0');
}

std::string_view ColumnFixedString::At(size_t row) const {
  CheckRow(row);
  return std::string_view(data_).substr(row * width_, width_);
}

void ColumnFixedString::ReadData(WireReader& in, size_t rows) {
  constexpr size_t kChunkBytes = size_t{1} << 20;
  if (rows > kMaxStringBytes / width_ * 64)
    Fail(ErrorCode::kCorruption, "{} column: implausible row count {}", type_name(), rows);
  size_t remaining = rows * width_;
  while (remaining > 0) {
    size_t n = std::min(remaining, kChunkBytes);
    size_t old_size = data_.size();
    data_.resize(old_size + n);
    in.ReadExact(data_.data() + old_size, n);
    remaining -= n;
  }
}

void ColumnFixedString::AppendText(size_t row, std::string& out) const {
  out.append(At(row));
}

}  // namespace rowbridge::clickhouse
