#include "binlog/base64.h"

namespace rowbridge::binlog {

void AppendBase64(const uint8_t* p, size_t n, std::string& out, size_t line_length) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t line = 0;
  for (size_t i = 0; i < n; i += 3) {
    if (line_length != 0 && line == line_length) {
      out.push_back('\n');
      line = 0;
    }
    const uint32_t b0 = p[i];
    const uint32_t b1 = i + 1 < n ? p[i + 1] : 0;
    const uint32_t b2 = i + 2 < n ? p[i + 2] : 0;
    const uint32_t triple = (b0 << 16) | (b1 << 8) | b2;
    out.push_back(kAlphabet[(triple >> 18) & 63]);
    out.push_back(kAlphabet[(triple >> 12) & 63]);
    out.push_back(i + 1 < n ? kAlphabet[(triple >> 6) & 63] : '=');
    out.push_back(i + 2 < n ? kAlphabet[triple & 63] : '=');
    line += 4;
  }
}

}  // namespace rowbridge::binlog
