#include "snapshot/text_rows.h"

#include "common/error.h"

namespace rowbridge::snapshot {

void TextRows::AppendField(std::string_view text) {
  if (text.size() < kLong) {
    bytes_.push_back(static_cast<char>(text.size()));
  } else {
    if (text.size() > UINT32_MAX)
      Fail(ErrorCode::kUnsupported, "a field of {} bytes in a chunk row (at most 4 GiB)",
           text.size());
    const uint32_t n = static_cast<uint32_t>(text.size());
    const char length[5] = {static_cast<char>(kLong), static_cast<char>(n & 0xFF),
                            static_cast<char>((n >> 8) & 0xFF), static_cast<char>((n >> 16) & 0xFF),
                            static_cast<char>((n >> 24) & 0xFF)};
    bytes_.append(length, sizeof length);
  }
  bytes_.append(text);
}

void TextRows::Get(size_t i, size_t count,
                   std::vector<std::optional<std::string_view>>& fields) const {
  if (i >= starts_.size())
    Fail(ErrorCode::kInternal, "chunk row {} asked for, {} held", i, starts_.size());
  fields.resize(count);
  const size_t end = i + 1 < starts_.size() ? starts_[i + 1] : bytes_.size();
  size_t at = starts_[i];
  for (size_t f = 0; f < count; ++f) {
    if (at >= end) Fail(ErrorCode::kInternal, "chunk row {} holds fewer than {} fields", i, count);
    const uint8_t head = static_cast<uint8_t>(bytes_[at++]);
    if (head == kNull) {
      fields[f].reset();
      continue;
    }
    size_t n = head;
    if (head == kLong) {
      if (end - at < 4) Fail(ErrorCode::kInternal, "chunk row {}: truncated field length", i);
      n = 0;
      for (int b = 3; b >= 0; --b) n = (n << 8) | static_cast<uint8_t>(bytes_[at + b]);
      at += 4;
    }
    if (end - at < n) Fail(ErrorCode::kInternal, "chunk row {}: truncated field", i);
    fields[f] = std::string_view(bytes_.data() + at, n);
    at += n;
  }
}

}  // namespace rowbridge::snapshot
