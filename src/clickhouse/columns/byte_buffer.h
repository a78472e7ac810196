// ByteBuffer: a growable byte array for hot append paths. Unlike std::string it never zero-fills
// the bytes it adds (Extend hands out uninitialized room the caller overwrites at once), so a
// value costs one capacity check and one copy. Capacity grows geometrically and clear() keeps
// it, so a buffer reused batch after batch stops allocating once it has seen its largest batch.
// Its memory comes from common/buffer_memory.h (huge pages for the big ones).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "common/buffer_memory.h"

namespace rowbridge::clickhouse {

// memcpy for the short values that fill most columns (names, codes, small texts): up to 32 bytes
// take two overlapping fixed-size moves instead of a call into the C library.
inline void CopyBytes(char* dst, const char* src, size_t n) {
  if (n <= 16) {
    if (n >= 8) {
      uint64_t head, tail;
      std::memcpy(&head, src, 8);
      std::memcpy(&tail, src + n - 8, 8);
      std::memcpy(dst, &head, 8);
      std::memcpy(dst + n - 8, &tail, 8);
    } else if (n >= 4) {
      uint32_t head, tail;
      std::memcpy(&head, src, 4);
      std::memcpy(&tail, src + n - 4, 4);
      std::memcpy(dst, &head, 4);
      std::memcpy(dst + n - 4, &tail, 4);
    } else if (n != 0) {
      dst[0] = src[0];
      dst[n / 2] = src[n / 2];
      dst[n - 1] = src[n - 1];
    }
    return;
  }
  if (n <= 32) {
    char head[16], tail[16];
    std::memcpy(head, src, 16);
    std::memcpy(tail, src + n - 16, 16);
    std::memcpy(dst, head, 16);
    std::memcpy(dst + n - 16, tail, 16);
    return;
  }
  std::memcpy(dst, src, n);
}

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  // A moved-from buffer is empty with no capacity.
  ByteBuffer(ByteBuffer&& other) noexcept { *this = std::move(other); }
  ByteBuffer& operator=(ByteBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  ~ByteBuffer() { release(); }

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {data_, size_}; }

  void clear() { size_ = 0; }
  // Empties the buffer and frees its memory.
  void release() {
    if (data_ != nullptr) FreeBuffer(data_, capacity_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }
  void reserve(size_t bytes) {
    if (bytes > capacity_) Reallocate(bytes);
  }
  // Makes room for `n` more bytes without changing size() (for writers that then Commit).
  char* Room(size_t n) {
    if (capacity_ - size_ < n) [[unlikely]]
      Grow(n);
    return data_ + size_;
  }
  // Adds `n` bytes that the caller wrote into Room().
  void Commit(size_t n) { size_ += n; }
  // Adds `n` uninitialized bytes and returns where they start.
  char* Extend(size_t n) {
    char* p = Room(n);
    size_ += n;
    return p;
  }
  void Append(const void* p, size_t n) { CopyBytes(Extend(n), static_cast<const char*>(p), n); }

 private:
  void Grow(size_t extra) {
    size_t wanted = capacity_ * 2;
    if (wanted < size_ + extra) wanted = size_ + extra;
    if (wanted < 256) wanted = 256;
    Reallocate(wanted);
  }
  void Reallocate(size_t capacity) {
    auto* bigger = static_cast<char*>(AllocateBuffer(capacity));  // may raise capacity
    if (size_ != 0) std::memcpy(bigger, data_, size_);
    if (data_ != nullptr) FreeBuffer(data_, capacity_);
    data_ = bigger;
    capacity_ = capacity;
  }

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace rowbridge::clickhouse
