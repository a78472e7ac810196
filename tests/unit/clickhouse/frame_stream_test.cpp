// FrameStream and WriteBlock(FrameStream&): the piecewise path must give byte for byte the frames
// of serializing the whole block into one buffer and compressing it with FrameCodec::Compress.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "clickhouse/block.h"
#include "clickhouse/columns/array.h"
#include "clickhouse/columns/byte_buffer.h"
#include "clickhouse/columns/low_cardinality.h"
#include "clickhouse/columns/nullable.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/compression.h"
#include "clickhouse/protocol.h"
#include "common/error.h"
#include "support/expect_error.h"

namespace rowbridge::clickhouse {
namespace {

using ::rowbridge::testing::CodeOf;

std::string Bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i)
    s[i] = (i / 300) % 2 ? static_cast<char>(rng()) : static_cast<char>('a' + i % 5);
  return s;
}

TEST(ClickHouseFrameStream, SameFramesAsCompressForAnySplit) {
  const std::string data = Bytes(50000, 1);
  std::mt19937_64 rng(7);
  for (CompressionMethod method :
       {CompressionMethod::kNone, CompressionMethod::kLz4, CompressionMethod::kZstd}) {
    for (size_t frame : {size_t{1}, size_t{999}, size_t{4096}, size_t{50000}, size_t{1} << 20}) {
      if (frame == 1 && method == CompressionMethod::kZstd) continue;  // 50,000 tiny frames
      FrameCodec codec(method, 3);
      std::string expected;
      codec.Compress(data, expected, frame);
      FrameStream stream(frame);
      for (int round = 0; round < 3; ++round) {  // Start() reuses the stream
        std::string out = "keep";
        stream.Start(codec, out);
        for (size_t pos = 0; pos < data.size();) {
          const size_t n = std::min<size_t>(data.size() - pos, rng() % (3 * frame + 2));
          stream.Append(std::string_view(data).substr(pos, n));
          pos += n;
        }
        stream.Finish();
        EXPECT_EQ(out, "keep" + expected) << CompressionMethodName(method) << " frame " << frame;
      }
    }
  }
}

// With a drain, every whole frame leaves `out` at once, and the drained bytes are the frames of
// the undrained stream.
TEST(ClickHouseFrameStream, DrainTakesEachFrameAsItIsMade) {
  const std::string data = Bytes(50000, 2);
  const size_t frame_input = 4096;
  for (CompressionMethod method :
       {CompressionMethod::kNone, CompressionMethod::kLz4, CompressionMethod::kZstd}) {
    FrameCodec codec(method, 3);
    std::string expected;
    codec.Compress(data, expected, frame_input);
    FrameStream stream(frame_input);
    for (int round = 0; round < 2; ++round) {  // the frame buffer is reused
      std::string out = "header";
      std::string drained;
      size_t drains = 0;
      size_t largest_frame = 0;
      stream.Start(codec, out, [&](std::string& pending, std::string_view frame) {
        EXPECT_EQ(pending, drains == 0 ? "header" : "");  // only what preceded the first frame
        drained += pending;
        pending.clear();
        drained += frame;
        largest_frame = std::max(largest_frame, frame.size());
        ++drains;
      });
      for (size_t pos = 0; pos < data.size(); pos += 700)
        stream.Append(std::string_view(data).substr(pos, 700));
      stream.Finish();
      EXPECT_EQ(drained, "header" + expected) << CompressionMethodName(method);
      EXPECT_EQ(out, "");
      EXPECT_EQ(drains, (data.size() + frame_input - 1) / frame_input);
      EXPECT_LE(largest_frame, codec.FrameBound(frame_input));
    }
    // The next stream without a drain appends to `out` again.
    std::string out;
    stream.Start(codec, out);
    stream.Append(data);
    stream.Finish();
    EXPECT_EQ(out, expected) << CompressionMethodName(method);
  }
}

TEST(ClickHouseFrameStream, EmptyStreamAndMisuse) {
  FrameCodec codec;
  FrameStream stream;
  std::string out;
  stream.Start(codec, out);
  stream.Append("");
  stream.Finish();
  EXPECT_EQ(out, "");
  EXPECT_EQ(CodeOf([&] { stream.Append("x"); }), ErrorCode::kInternal);  // finished
  EXPECT_EQ(CodeOf([] { FrameStream bad(0); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([] { FrameStream bad((size_t{1} << 30) + 1); }), ErrorCode::kInvalidArgument);
}

Block MixedBlock(size_t rows) {
  Block block;
  auto& id = block.AddColumn("id", std::make_unique<ColumnUInt64>());
  auto& text = block.AddColumn("text", std::make_unique<ColumnString>());
  auto& fixed = block.AddColumn("fixed", std::make_unique<ColumnFixedString>(5));
  auto& maybe =
      block.AddColumn("maybe", std::make_unique<ColumnNullable>(std::make_unique<ColumnString>()));
  auto& tags =
      block.AddColumn("tags", std::make_unique<ColumnArray>(std::make_unique<ColumnInt32>()));
  auto& label = block.AddColumn("label", std::make_unique<ColumnLowCardinalityString>(false));
  for (size_t r = 0; r < rows; ++r) {
    id.Append(r * 7919);
    // Short, 2-byte-VarUInt and 3-byte-VarUInt lengths, and values longer than a frame.
    const size_t length = r % 13 == 0 ? 20000 + r : r % 5 == 0 ? 300 : r % 17;
    text.Append(Bytes(length, r));
    fixed.Append(Bytes(r % 6, r + 1));
    if (r % 3 == 0) {
      maybe.AppendNull();
    } else {
      maybe.AppendNotNull();
      maybe.nested_as<ColumnString>().Append(Bytes(r % 40, r + 2));
    }
    for (size_t i = 0; i < r % 4; ++i)
      tags.nested_as<ColumnInt32>().Append(static_cast<int>(r + i));
    tags.FinishRow();
    label.Append(r % 2 ? "odd" : "even");
  }
  return block;
}

TEST(ClickHouseFrameStream, WriteBlockGivesTheFramesOfTheWholeBody) {
  for (size_t rows : {size_t{0}, size_t{1}, size_t{100}}) {
    const Block block = MixedBlock(rows);
    for (uint64_t revision : {uint64_t{0}, kClientRevision, kRevisionWithCustomSerialization}) {
      for (size_t frame : {size_t{64}, size_t{5000}, size_t{1} << 20}) {
        WireWriter body;
        WriteBlock(body, block, revision);
        FrameCodec codec(CompressionMethod::kLz4);
        std::string expected;
        codec.Compress(body.data(), expected, frame);

        FrameStream stream(frame);
        WireWriter scratch;
        std::string out;
        stream.Start(codec, out);
        WriteBlock(stream, block, revision, scratch);
        stream.Finish();
        EXPECT_EQ(out, expected) << rows << " rows, revision " << revision << ", frame " << frame;
      }
    }
  }
}

TEST(ClickHouseFrameStream, ContiguousDataIsWhatWriteDataWrites) {
  const Block block = MixedBlock(50);
  for (size_t i = 0; i < block.ColumnCount(); ++i) {
    std::string_view view;
    if (!block.At(i).ContiguousData(view)) continue;
    WireWriter written;
    block.At(i).WriteData(written);
    EXPECT_EQ(view, written.data()) << block.Name(i);
  }
}

TEST(ClickHouseFrameStream, ANullableColumnsHeadAndNestedDataAreWhatWriteDataWrites) {
  const Block block = MixedBlock(50);
  int nullables = 0;
  for (size_t i = 0; i < block.ColumnCount(); ++i) {
    WireWriter pieces;
    const Column* nested = block.At(i).WriteDataHead(pieces);
    if (nested == nullptr) {
      EXPECT_EQ(pieces.size(), 0u) << block.Name(i);
      continue;
    }
    ++nullables;
    nested->WriteData(pieces);
    WireWriter written;
    block.At(i).WriteData(written);
    EXPECT_EQ(pieces.data(), written.data()) << block.Name(i);
  }
  EXPECT_GT(nullables, 0) << "MixedBlock has no Nullable column";
}

TEST(ClickHouseColumnString, GrowsAcrossBatchesAndKeepsValues) {
  ColumnString s;
  std::vector<std::string> values;
  for (int batch = 0; batch < 3; ++batch) {
    s.Clear();
    values.clear();
    for (size_t r = 0; r < 2000; ++r) {
      values.push_back(Bytes((r * 37 + static_cast<size_t>(batch)) % 20000, r));
      s.Append(values.back());
    }
    ASSERT_EQ(s.Size(), values.size());
    for (size_t r = 0; r < values.size(); ++r) ASSERT_EQ(s.At(r), values[r]) << r;
  }
  s.Clear();
  s.ReserveBytes(1 << 16);
  s.Append({});
  EXPECT_EQ(s.At(0), "");
}

TEST(ClickHouseByteBuffer, ExtendAppendMoveAndReuse) {
  ByteBuffer b;
  EXPECT_TRUE(b.empty());
  b.Append("abc", 3);
  std::memcpy(b.Extend(2), "de", 2);
  std::memcpy(b.Room(4), "fghi", 4);
  b.Commit(4);
  EXPECT_EQ(b.view(), "abcdefghi");
  const std::string big = Bytes(100000, 3);
  b.Append(big.data(), big.size());
  EXPECT_EQ(b.view().substr(9), big);
  const size_t capacity = b.capacity();
  b.clear();
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.capacity(), capacity);  // clear keeps the room
  b.Append("x", 1);
  ByteBuffer moved(std::move(b));
  EXPECT_EQ(moved.view(), "x");
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(b.capacity(), 0u);
  b.Append("again", 5);
  EXPECT_EQ(b.view(), "again");
}

}  // namespace
}  // namespace rowbridge::clickhouse
