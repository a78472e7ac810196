// Base64 text of raw bytes, for the JSON forms of binary values and MySQL's opaque JSON values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rowbridge::binlog {

// Appends the standard-alphabet base64 of p[0..n) with '=' padding. With `line_length` > 0 a
// newline goes after every `line_length` characters, except at the very end (MySQL's
// base64_encode uses 76); with 0 the text is one line. line_length must be a multiple of 4.
void AppendBase64(const uint8_t* p, size_t n, std::string& out, size_t line_length = 0);

}  // namespace rowbridge::binlog
