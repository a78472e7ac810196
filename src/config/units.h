// Sizes and durations as people write them in a config file.
//
// Sizes: a non-negative number with an optional unit. Binary units are powers of 1024 (KiB, MiB,
// GiB, TiB), decimal units powers of 1000 (KB, MB, GB, TB), B is bytes and a bare number is bytes.
// Units are case-insensitive ("64mib" is 64 MiB), a space before the unit is allowed and a fraction
// is allowed when the result is a whole number of bytes ("1.5GiB").
//
// Durations: one or more number+unit pairs ("500ms", "1m30s", "1.5s") with units ms, s, m, h, d.
// A bare number is rejected because it is ambiguous, except "0". The result must be a whole number
// of milliseconds.
//
// Both throw Error(kInvalidArgument) whose message explains what is wrong with the text; the config
// loader prefixes it with the key and the line.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace rowbridge::config {

uint64_t ParseSize(std::string_view text);
std::chrono::milliseconds ParseDuration(std::string_view text);

// Exact renderings that the parsers read back to the same value: the largest unit that divides
// the value, binary before decimal (67108864 -> "64MiB", 1000 -> "1KB", 1023 -> "1023B"), and
// durations as unit pairs (90000ms -> "1m30s", 0 -> "0s").
std::string FormatSize(uint64_t bytes);
std::string FormatDuration(std::chrono::milliseconds duration);

}  // namespace rowbridge::config
