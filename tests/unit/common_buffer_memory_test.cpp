#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/buffer_memory.h"

namespace rowbridge {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = kKiB * kKiB;

TEST(BufferArena, SizesAreRoundedToTheirClass) {
  EXPECT_EQ(BufferArena::UsableSize(1), 1u);
  EXPECT_EQ(BufferArena::UsableSize(64 * kKiB - 1), 64 * kKiB - 1);
  EXPECT_EQ(BufferArena::UsableSize(64 * kKiB), 64 * kKiB);
  EXPECT_EQ(BufferArena::UsableSize(64 * kKiB + 1), 128 * kKiB);
  EXPECT_EQ(BufferArena::UsableSize(700 * kKiB), 1 * kMiB);
  EXPECT_EQ(BufferArena::UsableSize(1 * kMiB), 1 * kMiB);
  EXPECT_EQ(BufferArena::UsableSize(1 * kMiB + 1), 2 * kMiB);
  EXPECT_EQ(BufferArena::UsableSize(5 * kMiB), 6 * kMiB);
  // A usable size is its own class: what a buffer records as its capacity frees it correctly.
  for (size_t bytes : {size_t{100}, 70 * kKiB, 300 * kKiB, 3 * kMiB})
    EXPECT_EQ(BufferArena::UsableSize(BufferArena::UsableSize(bytes)),
              BufferArena::UsableSize(bytes));
}

TEST(BufferArena, SlabBlocksShareChunksAndDoNotOverlap) {
  BufferArena arena;
  // 2 MiB chunks hold 16 blocks of 128 KiB: 20 blocks take two chunks.
  std::vector<char*> blocks;
  for (int i = 0; i < 20; ++i) {
    auto* p = static_cast<char*>(arena.Allocate(100 * kKiB));
    std::memset(p, i, 128 * kKiB);  // the whole usable size is writable
    blocks.push_back(p);
  }
  EXPECT_EQ(arena.slab_chunks(), 2u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(blocks[i]) % (128 * kKiB), 0u);
    EXPECT_EQ(blocks[i][0], static_cast<char>(i));
    EXPECT_EQ(blocks[i][128 * kKiB - 1], static_cast<char>(i)) << "block " << i << " overlaps";
  }
  for (char* p : blocks) arena.Free(p, 100 * kKiB);
  // Everything freed: one spare chunk of the size stays, the other went back to the system.
  EXPECT_EQ(arena.slab_chunks(), 1u);
  EXPECT_EQ(arena.mapped_bytes(), BufferArena::kChunkBytes);
  // The spare is used again.
  void* again = arena.Allocate(128 * kKiB);
  EXPECT_EQ(arena.slab_chunks(), 1u);
  arena.Free(again, 128 * kKiB);
}

TEST(BufferArena, EachSizeHasItsOwnChunks) {
  BufferArena arena;
  void* a = arena.Allocate(64 * kKiB);
  void* b = arena.Allocate(512 * kKiB);
  void* c = arena.Allocate(1 * kMiB);
  EXPECT_EQ(arena.slab_chunks(), 3u);
  arena.Free(b, 512 * kKiB);
  void* b2 = arena.Allocate(400 * kKiB);  // same class: the freed block
  EXPECT_EQ(b2, b);
  arena.Free(a, 64 * kKiB);
  arena.Free(b2, 400 * kKiB);
  arena.Free(c, 1 * kMiB);
}

TEST(BufferArena, BigBuffersAreMappedAlignedAndUnmappedWhenFreed) {
  BufferArena arena;
  auto* p = static_cast<char*>(arena.Allocate(5 * kMiB));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % BufferArena::kChunkBytes, 0u);
  std::memset(p, 7, 6 * kMiB);
  EXPECT_EQ(arena.mapped_bytes(), 6 * kMiB);
  EXPECT_EQ(arena.slab_chunks(), 0u);
  arena.Free(p, 5 * kMiB);
  EXPECT_EQ(arena.mapped_bytes(), 0u);
}

TEST(BufferArena, SmallBuffersComeFromTheHeap) {
  BufferArena arena;
  void* p = arena.Allocate(1000);
  EXPECT_EQ(arena.mapped_bytes(), 0u);
  arena.Free(p, 1000);
}

TEST(BufferAllocator, VectorsGrowAndShrinkThroughIt) {
  std::vector<uint64_t, BufferAllocator<uint64_t>> values;
  for (uint64_t i = 0; i < 1'000'000; ++i) values.push_back(i * 3);
  for (uint64_t i = 0; i < values.size(); i += 99'991) EXPECT_EQ(values[i], i * 3);
  decltype(values)().swap(values);
  EXPECT_EQ(values.capacity(), 0u);
}

}  // namespace
}  // namespace rowbridge
