#include "binlog/json_string.h"

#include <fmt/format.h>

#include <iterator>

namespace rowbridge::binlog {
namespace {

void AppendEscaped(uint8_t c, std::string& out) {
  switch (c) {
    case '"':
      out.append("\\\"");
      break;
    case '\\':
      out.append("\\\\");
      break;
    case '\b':
      out.append("\\b");
      break;
    case '\f':
      out.append("\\f");
      break;
    case '\n':
      out.append("\\n");
      break;
    case '\r':
      out.append("\\r");
      break;
    case '\t':
      out.append("\\t");
      break;
    default:
      fmt::format_to(std::back_inserter(out), "\\u00{:02x}", c);
      break;
  }
}

}  // namespace

size_t Utf8SequenceLength(const uint8_t* p, size_t n) {
  const uint8_t c = p[0];
  if (c < 0x80) return 1;
  size_t length;
  uint32_t code;
  if (c >= 0xc2 && c <= 0xdf) {
    length = 2;
    code = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    code = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (length > n) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    code = (code << 6) | (p[i] & 0x3f);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not valid UTF-8.
  if ((length == 3 && code < 0x800) || (length == 4 && code < 0x10000) || code > 0x10ffff ||
      (code >= 0xd800 && code <= 0xdfff)) {
    return 0;
  }
  return length;
}

void AppendJsonString(std::string_view text, std::string& out, InvalidUtf8 invalid) {
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  out.push_back('"');
  size_t run = 0;  // start of the pending run of bytes copied as they are
  size_t i = 0;
  while (i < n) {
    const uint8_t c = p[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      if (c < 0x80 || invalid == InvalidUtf8::kVerbatim) {
        ++i;
        continue;
      }
      if (const size_t length = Utf8SequenceLength(p + i, n - i); length != 0) {
        i += length;
        continue;
      }
    }
    out.append(text.data() + run, i - run);
    AppendEscaped(c, out);
    run = ++i;
  }
  out.append(text.data() + run, n - run);
  out.push_back('"');
}

void AppendUtf8Sanitized(std::string_view text, std::string& out) {
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t run = 0;
  size_t i = 0;
  while (i < n) {
    if (const size_t length = Utf8SequenceLength(p + i, n - i); length != 0) {
      i += length;
      continue;
    }
    out.append(text.data() + run, i - run);
    fmt::format_to(std::back_inserter(out), "\\u00{:02x}", p[i]);
    run = ++i;
  }
  out.append(text.data() + run, n - run);
}

}  // namespace rowbridge::binlog
