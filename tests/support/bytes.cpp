#include "support/bytes.h"

#include <fstream>
#include <iterator>

#include "common/error.h"

namespace rowbridge::testing {
namespace {

int HexDigit(char c, std::string_view hex) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  Fail(ErrorCode::kInternal, "'{}' in test hex \"{}\" is not a hex digit", c, hex);
}

}  // namespace

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) {
    Fail(ErrorCode::kInternal, "test hex \"{}\" has an odd number of digits", hex);
  }
  std::string bytes;
  bytes.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(HexDigit(hex[i], hex) << 4 | HexDigit(hex[i + 1], hex)));
  }
  return bytes;
}

std::vector<uint8_t> HexBytes(std::string_view hex) {
  const std::string bytes = FromHex(hex);
  return {bytes.begin(), bytes.end()};
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(ErrorCode::kIo, "cannot open {}", path.string());
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) Fail(ErrorCode::kIo, "cannot read {}", path.string());
  return data;
}

}  // namespace rowbridge::testing
