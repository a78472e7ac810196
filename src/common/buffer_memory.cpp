#include "common/buffer_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <string_view>

namespace rowbridge {
namespace {

// `bytes` (a multiple of kChunkBytes) of fresh memory at a kChunkBytes boundary, marked for huge
// pages. mmap aligns only to 4 KiB, so one chunk more is mapped and the ends are cut off.
void* MapAligned(size_t bytes) {
  const size_t align = BufferArena::kChunkBytes;
  void* raw =
      ::mmap(nullptr, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + align - 1) & ~(uintptr_t{align} - 1);
  if (aligned != start) ::munmap(raw, aligned - start);
  const uintptr_t tail = start + bytes + align - (aligned + bytes);
  if (tail != 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  // Advice only: where the kernel has no transparent huge pages this fails and the memory is
  // ordinary.
  (void)::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void Unmap(uintptr_t start, size_t bytes) {
  ::munmap(reinterpret_cast<void*>(start), bytes);
}

// The free mask of a chunk of `blocks` blocks (at most 32) with every block free.
uint32_t AllFree(uint32_t blocks) {
  return blocks == 32 ? ~uint32_t{0} : (uint32_t{1} << blocks) - 1;
}

}  // namespace

BufferArena::~BufferArena() {
  for (const auto& [base, chunk] : chunks_) Unmap(base, kChunkBytes);
}

int BufferArena::SlabClass(size_t bytes) {
  // bytes in [kSlabMinBytes, kSlabMaxBytes]: the power of two at or above it.
  return std::bit_width(bytes - 1) - std::bit_width(kSlabMinBytes - 1);
}

size_t BufferArena::UsableSize(size_t bytes) {
  if (bytes < kSlabMinBytes) return bytes;
  if (bytes <= kSlabMaxBytes) return kSlabMinBytes << SlabClass(bytes);
  return (bytes + kChunkBytes - 1) / kChunkBytes * kChunkBytes;
}

void* BufferArena::Allocate(size_t bytes) {
  if (bytes < kSlabMinBytes) return ::operator new(std::max<size_t>(bytes, 1));
  if (bytes > kSlabMaxBytes) {
    const size_t size = UsableSize(bytes);
    void* p = MapAligned(size);
    std::lock_guard lock(mutex_);
    mapped_bytes_ += size;
    return p;
  }
  const int cls = SlabClass(bytes);
  const size_t block = kSlabMinBytes << cls;
  std::lock_guard lock(mutex_);
  std::vector<uintptr_t>& room = with_room_[cls];
  if (room.empty()) {
    const auto base = reinterpret_cast<uintptr_t>(MapAligned(kChunkBytes));
    const auto blocks = static_cast<uint32_t>(kChunkBytes / block);
    chunks_.emplace(base, Chunk{blocks, AllFree(blocks)});
    mapped_bytes_ += kChunkBytes;
    room.push_back(base);
  }
  const uintptr_t base = room.back();
  Chunk& chunk = chunks_.at(base);
  const int index = std::countr_zero(chunk.free_mask);
  chunk.free_mask &= chunk.free_mask - 1;
  if (chunk.free_mask == 0) room.pop_back();
  return reinterpret_cast<void*>(base + static_cast<uintptr_t>(index) * block);
}

void BufferArena::Free(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (bytes < kSlabMinBytes) {
    ::operator delete(p);
    return;
  }
  const auto address = reinterpret_cast<uintptr_t>(p);
  if (bytes > kSlabMaxBytes) {
    const size_t size = UsableSize(bytes);
    Unmap(address, size);
    std::lock_guard lock(mutex_);
    mapped_bytes_ -= size;
    return;
  }
  const int cls = SlabClass(bytes);
  const size_t block = kSlabMinBytes << cls;
  const uintptr_t base = address & ~(uintptr_t{kChunkBytes} - 1);
  std::lock_guard lock(mutex_);
  auto it = chunks_.find(base);
  if (it == chunks_.end()) return;  // not ours: a caller's bug; leaking beats corrupting
  Chunk& chunk = it->second;
  const bool had_room = chunk.free_mask != 0;
  chunk.free_mask |= uint32_t{1} << ((address - base) / block);
  std::vector<uintptr_t>& room = with_room_[cls];
  if (!had_room) room.push_back(base);
  // A chunk with nothing in use goes back unless it is the last one with room of its size (a
  // buffer that grows and shrinks around one size must not map and unmap a chunk each time).
  if (chunk.free_mask == AllFree(chunk.blocks) && room.size() > 1) {
    room.erase(std::find(room.begin(), room.end(), base));
    chunks_.erase(it);
    Unmap(base, kChunkBytes);
    mapped_bytes_ -= kChunkBytes;
  }
}

size_t BufferArena::slab_chunks() const {
  std::lock_guard lock(mutex_);
  return chunks_.size();
}

size_t BufferArena::mapped_bytes() const {
  std::lock_guard lock(mutex_);
  return mapped_bytes_;
}

BufferArena& BufferArena::Shared() {
  // Never destroyed: buffers in static objects may be freed after main returns.
  static auto* arena = new BufferArena();
  return *arena;
}

bool BuffersFromArena() {
  static const bool from_arena = [] {
    const char* setting = std::getenv("ROWBRIDGE_BUFFER_ARENA");
    if (setting != nullptr &&
        (std::string_view(setting) == "0" || std::string_view(setting) == "1"))
      return std::string_view(setting) == "1";
#if defined(__SANITIZE_ADDRESS__)
    return false;
#else
    return true;
#endif
  }();
  return from_arena;
}

void* AllocateBuffer(size_t& bytes) {
  if (!BuffersFromArena()) return ::operator new(std::max<size_t>(bytes, 1));
  bytes = BufferArena::UsableSize(bytes);
  return BufferArena::Shared().Allocate(bytes);
}

void FreeBuffer(void* p, size_t bytes) {
  if (!BuffersFromArena()) {
    ::operator delete(p);
    return;
  }
  BufferArena::Shared().Free(p, bytes);
}

}  // namespace rowbridge
