// JSON string literals from raw bytes: the one escaper behind the JSON value formatter, the JSON
// text of binary JSON documents and `dump-binlog --format=json`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rowbridge::binlog {

// The length (1..4) of the valid UTF-8 sequence at the start of p[0..n), or 0 if the bytes there
// are not valid UTF-8 (a stray continuation byte, an overlong form, a surrogate, a code point past
// U+10FFFF, or a sequence cut short by n). n must be at least 1.
size_t Utf8SequenceLength(const uint8_t* p, size_t n);

// What AppendJsonString does with bytes that are not valid UTF-8.
enum class InvalidUtf8 {
  kEscape,    // each such byte becomes \u00xx (its latin1 reading): the output is always valid JSON
  kVerbatim,  // copied as they are, as MySQL's own JSON printer does
};

// Appends `text` as a double-quoted JSON string, escaped as MySQL's double_quote(): " \ \b \f \n
// \r \t as two-character escapes, other bytes below 0x20 as \u00xx (lower-case hex), all other
// bytes copied (subject to `invalid`).
void AppendJsonString(std::string_view text, std::string& out,
                      InvalidUtf8 invalid = InvalidUtf8::kEscape);

// Copies `text` into `out`, replacing each byte that is not part of valid UTF-8 by \u00xx. For
// text whose JSON syntax is already in place (its strings escaped), so that only the contents of
// strings can change.
void AppendUtf8Sanitized(std::string_view text, std::string& out);

}  // namespace rowbridge::binlog
