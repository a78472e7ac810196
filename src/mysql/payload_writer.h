// PayloadWriter: builds the payload of a client packet (little-endian integers, MySQL
// length-encoded integers and strings). Reuse one writer to avoid reallocating: Clear() keeps the
// capacity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rowbridge::mysql {

class PayloadWriter {
 public:
  void Clear() { bytes_.clear(); }
  const std::string& bytes() const { return bytes_; }

  PayloadWriter& U8(uint8_t v) {
    bytes_.push_back(static_cast<char>(v));
    return *this;
  }
  PayloadWriter& UInt(uint64_t v, int width) {
    for (int i = 0; i < width; ++i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }
  PayloadWriter& U16(uint16_t v) { return UInt(v, 2); }
  PayloadWriter& U32(uint32_t v) { return UInt(v, 4); }
  PayloadWriter& U64(uint64_t v) { return UInt(v, 8); }
  PayloadWriter& Zeros(size_t n) {
    bytes_.append(n, '\0');
    return *this;
  }
  PayloadWriter& Raw(std::string_view s) {
    bytes_.append(s);
    return *this;
  }
  PayloadWriter& NulTerminated(std::string_view s) {
    bytes_.append(s);
    bytes_.push_back('\0');
    return *this;
  }
  PayloadWriter& LengthEncoded(uint64_t v) {
    if (v < 0xfb) return U8(static_cast<uint8_t>(v));
    if (v <= 0xffff) return U8(0xfc).UInt(v, 2);
    if (v <= 0xffffff) return U8(0xfd).UInt(v, 3);
    return U8(0xfe).UInt(v, 8);
  }
  PayloadWriter& LengthEncodedString(std::string_view s) { return LengthEncoded(s.size()).Raw(s); }

 private:
  std::string bytes_;
};

}  // namespace rowbridge::mysql
