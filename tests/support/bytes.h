// Byte helpers for tests: hex in and out, and whole files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::testing {

// Lower-case hex of every byte, no separators: "00ff10".
std::string Hex(std::string_view bytes);

// The bytes of an even-length string of hex digit pairs ("00FF10", either case). Throws
// rowbridge::Error (kInternal) on an odd length or a non-hex character: the test's own data is
// wrong.
std::string FromHex(std::string_view hex);
std::vector<uint8_t> HexBytes(std::string_view hex);

// The whole file, bytes as they are. Throws rowbridge::Error (kIo) naming the path if it cannot
// be read.
std::string ReadFile(const std::filesystem::path& path);

}  // namespace rowbridge::testing
