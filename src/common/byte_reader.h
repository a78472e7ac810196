// ByteReader: a bounds-checked little-endian cursor over bytes we did not produce (binlog files,
// packets). Every read checks the remaining length first; running past the end throws
// Error(kCorruption) naming the absolute offset (base_offset + position) and what was being read,
// so truncated or corrupt input never reads out of bounds.
//
// The reader does not own the bytes; string_views it returns point into the original buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "common/error.h"

namespace rowbridge {

class ByteReader {
 public:
  // `context` names the input in error messages ("binlog mysql-bin.000003", "MySQL packet").
  ByteReader(const uint8_t* data, size_t size, uint64_t base_offset = 0,
             std::string_view context = "input")
      : data_(data), size_(size), base_offset_(base_offset), context_(context) {}
  ByteReader(std::string_view bytes, uint64_t base_offset = 0, std::string_view context = "input")
      : ByteReader(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), base_offset,
                   context) {}

  size_t position() const { return pos_; }
  size_t size() const { return size_; }
  size_t remaining() const { return size_ - pos_; }
  bool AtEnd() const { return pos_ == size_; }
  // Absolute offset of the cursor, for error messages.
  uint64_t offset() const { return base_offset_ + pos_; }
  const uint8_t* current() const { return data_ + pos_; }
  std::string_view context() const { return context_; }

  void Need(size_t n, const char* what) const {
    if (n > size_ - pos_) Truncated(n, what);
  }

  uint8_t U8(const char* what = "byte") {
    Need(1, what);
    return data_[pos_++];
  }
  uint16_t U16(const char* what = "uint16") { return static_cast<uint16_t>(UInt(2, what)); }
  uint32_t U24(const char* what = "uint24") { return static_cast<uint32_t>(UInt(3, what)); }
  uint32_t U32(const char* what = "uint32") { return static_cast<uint32_t>(UInt(4, what)); }
  uint64_t U48(const char* what = "uint48") { return UInt(6, what); }
  uint64_t U64(const char* what = "uint64") { return UInt(8, what); }

  // Little-endian unsigned integer of 1..8 bytes.
  uint64_t UInt(size_t bytes, const char* what = "integer") {
    Need(bytes, what);
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += bytes;
    return v;
  }

  // MySQL length-encoded integer (0xfb, the NULL marker, is rejected here; see IsNullMarker).
  uint64_t LengthEncoded(const char* what = "length-encoded integer") {
    uint8_t first = U8(what);
    if (first < 0xfb) return first;
    switch (first) {
      case 0xfc:
        return UInt(2, what);
      case 0xfd:
        return UInt(3, what);
      case 0xfe:
        return UInt(8, what);
      default:
        Corrupt(fmt::format("invalid {} prefix 0x{:02x}", what, first));
    }
  }

  std::string_view Bytes(size_t n, const char* what = "bytes") {
    Need(n, what);
    std::string_view v(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return v;
  }
  std::string_view LengthEncodedString(const char* what = "length-encoded string") {
    uint64_t n = LengthEncoded(what);
    if (n > remaining()) Truncated(n, what);
    return Bytes(static_cast<size_t>(n), what);
  }
  // Bytes up to (not including) the next NUL; the NUL is consumed.
  std::string_view NulTerminated(const char* what = "NUL-terminated string") {
    const void* nul = std::memchr(data_ + pos_, 0, size_ - pos_);
    if (nul == nullptr) Corrupt(fmt::format("{} has no terminating NUL", what));
    size_t n = static_cast<const uint8_t*>(nul) - (data_ + pos_);
    std::string_view v = Bytes(n, what);
    ++pos_;
    return v;
  }
  std::string_view Rest() { return Bytes(remaining()); }
  void Skip(size_t n, const char* what = "bytes") {
    Need(n, what);
    pos_ += n;
  }

  [[noreturn]] void Corrupt(std::string_view message) const {
    Fail(ErrorCode::kCorruption, "{} at offset {}: {}", context_, offset(), message);
  }

 private:
  [[noreturn]] void Truncated(uint64_t wanted, const char* what) const {
    Fail(ErrorCode::kCorruption, "{} at offset {}: truncated {} (need {} bytes, {} left)", context_,
         offset(), what, wanted, size_ - pos_);
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t base_offset_;
  std::string_view context_;
};

}  // namespace rowbridge
