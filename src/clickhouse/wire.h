// The ClickHouse native format's primitive encodings: little-endian fixed-width values, unsigned
// LEB128 ("VarUInt") and length-prefixed strings. WireWriter appends to a reusable byte buffer;
// WireReader pulls from any source (a socket, a decompressing stream, a test buffer) and throws
// Error(kCorruption/kNetwork) instead of returning short reads.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/error.h"

namespace rowbridge::clickhouse {

class WireWriter {
 public:
  void Clear() { buf_.clear(); }  // keeps capacity: writers are reused batch after batch
  const std::string& data() const { return buf_; }
  std::string& mutable_data() { return buf_; }
  size_t size() const { return buf_.size(); }

  void VarUInt(uint64_t v) {
    char tmp[10];
    size_t n = 0;
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      if (v) byte |= 0x80;
      tmp[n++] = static_cast<char>(byte);
    } while (v);
    buf_.append(tmp, n);
  }
  template <typename T>
  void Fixed(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    char tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof(T));  // x86-64 and aarch64 are little-endian, as is the format
    buf_.append(tmp, sizeof(T));
  }
  void String(std::string_view s) {
    VarUInt(s.size());
    buf_.append(s.data(), s.size());
  }
  void Bytes(const void* p, size_t n) { buf_.append(static_cast<const char*>(p), n); }

 private:
  std::string buf_;
};

class WireReader {
 public:
  virtual ~WireReader() = default;
  // Reads exactly n bytes or throws.
  virtual void ReadExact(void* dst, size_t n) = 0;

  uint64_t VarUInt() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      uint8_t byte;
      ReadExact(&byte, 1);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    Fail(ErrorCode::kCorruption, "ClickHouse stream: VarUInt longer than 10 bytes");
  }
  template <typename T>
  T Fixed() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    ReadExact(&v, sizeof(T));
    return v;
  }
  // `limit` guards against a corrupt length making us allocate gigabytes.
  std::string String(size_t limit = size_t{1} << 30) {
    uint64_t n = VarUInt();
    if (n > limit) Fail(ErrorCode::kCorruption, "ClickHouse stream: string length {} too large", n);
    std::string s(n, '\0');
    if (n) ReadExact(s.data(), n);
    return s;
  }
};

// A WireReader over a byte buffer in memory (tests, fuzzing, decompressed blocks).
class BufferWireReader : public WireReader {
 public:
  explicit BufferWireReader(std::string_view data) : data_(data) {}
  void ReadExact(void* dst, size_t n) override {
    if (n > data_.size() - pos_)
      Fail(ErrorCode::kCorruption, "ClickHouse data: truncated at byte {} (need {}, have {})", pos_,
           n, data_.size() - pos_);
    std::memcpy(dst, data_.data() + pos_, n);
    pos_ += n;
  }
  bool AtEnd() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace rowbridge::clickhouse
