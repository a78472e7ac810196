// Memory for the big, long-lived buffers of the hot path: the columns of a batch.
//
// A batch's columns add up to tens of MB. They are filled once, kept, and reused batch after
// batch, so their cost is the first fill: with 4 KiB pages that is one page fault per 4 KiB, about
// 10 µs each on a virtualized host (16,000 faults, 0.1 CPU-s, in a 500,000-row catch-up). Buffers
// of kSlabMinBytes or more therefore come from 2 MiB-aligned regions marked MADV_HUGEPAGE, which
// the kernel backs with one 2 MiB page per fault where it can (transparent huge pages in "always"
// or "madvise" mode; otherwise they behave as ordinary memory).
//
// Sizes:
//   below kSlabMinBytes          operator new (small buffers: a few pages at most)
//   kSlabMinBytes .. kSlabMaxBytes  rounded up to a power of two and carved from 2 MiB chunks
//                                (blocks of one size per chunk); a chunk with no block in use is
//                                returned to the system, except the last one of its size
//   above kSlabMaxBytes          rounded up to a multiple of 2 MiB, mapped on its own, unmapped
//                                when freed
// So a freed buffer's memory goes back to the system (RetainPolicy relies on that), apart from at
// most one spare chunk per size.
//
// Thread-safe (one mutex; buffers are allocated only when they grow or are freed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace rowbridge {

class BufferArena {
 public:
  static constexpr size_t kChunkBytes = size_t{2} << 20;
  static constexpr size_t kSlabMinBytes = size_t{64} << 10;
  static constexpr size_t kSlabMaxBytes = size_t{1} << 20;

  BufferArena() = default;
  BufferArena(const BufferArena&) = delete;
  BufferArena& operator=(const BufferArena&) = delete;
  // Unmaps every chunk; buffers still allocated from it become invalid.
  ~BufferArena();

  // The bytes a request of `bytes` actually gets (what Allocate's memory can hold).
  static size_t UsableSize(size_t bytes);
  // At least `bytes` (> 0) of memory, aligned for any type. Throws std::bad_alloc.
  void* Allocate(size_t bytes);
  // `bytes`: the size given to Allocate (or anything with the same UsableSize).
  void Free(void* p, size_t bytes);

  // For tests: chunks mapped for slab blocks, and the bytes of all mappings.
  size_t slab_chunks() const;
  size_t mapped_bytes() const;

  // The arena the column buffers use.
  static BufferArena& Shared();

 private:
  struct Chunk {
    uint32_t blocks = 0;     // blocks per chunk
    uint32_t free_mask = 0;  // bit i: block i is free
  };
  static int SlabClass(size_t bytes);  // 0 for kSlabMinBytes, +1 per doubling

  static constexpr int kSlabClasses = 5;  // 64 KiB .. 1 MiB
  mutable std::mutex mutex_;
  std::unordered_map<uintptr_t, Chunk> chunks_;     // by base address
  std::vector<uintptr_t> with_room_[kSlabClasses];  // chunks with a free block, per class
  size_t mapped_bytes_ = 0;
};

// Whether column buffers take the huge-page path (BufferArena::Shared), decided once per process:
// by ROWBRIDGE_BUFFER_ARENA=1 or 0 in the environment, else on, except in sanitizer builds (there
// operator new's redzones let AddressSanitizer see every buffer's bounds; the tests turn the arena
// on where they run whole replications through it).
bool BuffersFromArena();

// Raw buffers through the shared arena (operator new where BuffersFromArena() is false).
// AllocateBuffer may raise `bytes` to the size it really gives.
void* AllocateBuffer(size_t& bytes);
void FreeBuffer(void* p, size_t bytes);
// The memory a buffer of `bytes` capacity really holds (for memory accounting).
inline size_t HeldBufferBytes(size_t bytes) {
  return BuffersFromArena() ? BufferArena::UsableSize(bytes) : bytes;
}

// A std allocator on AllocateBuffer, for std::vector column storage.
template <typename T>
struct BufferAllocator {
  using value_type = T;
  BufferAllocator() = default;
  template <typename U>
  BufferAllocator(const BufferAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    size_t bytes = n * sizeof(T);
    return static_cast<T*>(AllocateBuffer(bytes));
  }
  void deallocate(T* p, size_t n) noexcept { FreeBuffer(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const BufferAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace rowbridge
