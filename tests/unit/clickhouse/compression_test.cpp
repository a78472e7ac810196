#include "clickhouse/compression.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>

#include "clickhouse/cityhash.h"
#include "common/error.h"
#include "support/paths.h"

namespace rowbridge::clickhouse {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string SampleText() {
  return ReadFile(testing::TestDataDir() / "clickhouse" / "sample.txt");
}

std::string Mixed(size_t n) {
  std::mt19937_64 rng(42);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) {
    // Half random, half runs, so every codec has something to do.
    s[i] = (i / 512) % 2 ? static_cast<char>(rng()) : static_cast<char>('a' + (i / 64) % 7);
  }
  return s;
}

ErrorCode CodeOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no Error thrown";
  return ErrorCode::kInternal;
}

TEST(ClickHouseCompression, DecodesClickHouseCompressorFiles) {
  const std::string expected = SampleText();
  for (const char* name : {"sample.lz4.chc", "sample.zstd.chc"}) {
    std::string frames = ReadFile(testing::TestDataDir() / "clickhouse" / name);
    FrameCodec codec;
    std::string out;
    codec.DecompressAll(frames, out, FrameLimits{}, name);
    EXPECT_EQ(out, expected) << name;
  }
}

TEST(ClickHouseCompression, RoundTripsEveryMethodAndFrameSize) {
  for (CompressionMethod method :
       {CompressionMethod::kNone, CompressionMethod::kLz4, CompressionMethod::kZstd}) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{4095}, size_t{70000}}) {
      for (size_t frame : {size_t{1000}, size_t{1} << 20}) {
        std::string data = Mixed(size);
        FrameCodec codec(method, 3);
        std::string compressed;
        codec.Compress(data, compressed, frame);
        std::string back;
        codec.DecompressAll(compressed, back, FrameLimits{}, "test");
        EXPECT_EQ(back, data) << CompressionMethodName(method) << " " << size << "/" << frame;
        if (size > 0) {
          EXPECT_EQ(static_cast<uint8_t>(compressed[16]), static_cast<uint8_t>(method));
        }
      }
    }
  }
}

TEST(ClickHouseCompression, FrameLayoutIsClickHouses) {
  FrameCodec codec(CompressionMethod::kNone);
  std::string out;
  codec.Compress("hello", out);
  ASSERT_EQ(out.size(), 16u + 9u + 5u);
  uint32_t compressed, raw;
  std::memcpy(&compressed, out.data() + 17, 4);
  std::memcpy(&raw, out.data() + 21, 4);
  EXPECT_EQ(out[16], 0x02);
  EXPECT_EQ(compressed, 14u);
  EXPECT_EQ(raw, 5u);
  EXPECT_EQ(out.substr(25), "hello");
}

TEST(ClickHouseCompression, RejectsEveryFlippedBit) {
  FrameCodec codec(CompressionMethod::kLz4);
  std::string good;
  codec.Compress(Mixed(3000), good);
  for (size_t byte = 0; byte < good.size(); byte += 7) {
    for (int bit = 0; bit < 8; bit += 3) {
      std::string bad = good;
      bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
      std::string out;
      ErrorCode code = CodeOf([&] { codec.DecompressAll(bad, out, FrameLimits{}, "flip"); });
      EXPECT_EQ(code, ErrorCode::kCorruption) << "byte " << byte << " bit " << bit;
    }
  }
}

TEST(ClickHouseCompression, RejectsTruncationAndOversizedFrames) {
  FrameCodec codec(CompressionMethod::kZstd);
  std::string good;
  codec.Compress(Mixed(5000), good);
  for (size_t cut : {size_t{1}, size_t{10}, size_t{24}, size_t{25}, good.size() - 1}) {
    std::string out;
    EXPECT_EQ(CodeOf([&] {
                codec.DecompressAll(std::string_view(good).substr(0, cut), out, FrameLimits{},
                                    "cut");
              }),
              ErrorCode::kCorruption)
        << cut;
  }
  FrameLimits tight;
  tight.max_uncompressed_size = 4999;
  std::string out;
  EXPECT_EQ(CodeOf([&] { codec.DecompressAll(good, out, tight, "limit"); }),
            ErrorCode::kCorruption);
  tight = FrameLimits{};
  tight.max_compressed_size = 100;
  EXPECT_EQ(CodeOf([&] { codec.DecompressAll(good, out, tight, "limit"); }),
            ErrorCode::kCorruption);
}

TEST(ClickHouseCompression, IntactFrameWithForeignCodecIsUnsupported) {
  // Build a frame by hand with a valid checksum but the Delta codec byte (0x92).
  FrameCodec codec(CompressionMethod::kNone);
  std::string frame;
  codec.Compress("abcdefgh", frame);
  frame[16] = static_cast<char>(0x92);
  CityHash128Value sum = CityHash128(frame.data() + 16, frame.size() - 16);
  std::memcpy(frame.data(), &sum.low, 8);
  std::memcpy(frame.data() + 8, &sum.high, 8);
  std::string out;
  EXPECT_EQ(CodeOf([&] { codec.DecompressAll(frame, out, FrameLimits{}, "delta"); }),
            ErrorCode::kUnsupported);
  frame[16] = 0x07;
  sum = CityHash128(frame.data() + 16, frame.size() - 16);
  std::memcpy(frame.data(), &sum.low, 8);
  std::memcpy(frame.data() + 8, &sum.high, 8);
  EXPECT_EQ(CodeOf([&] { codec.DecompressAll(frame, out, FrameLimits{}, "junk"); }),
            ErrorCode::kCorruption);
}

TEST(ClickHouseCompression, ParsesMethodNames) {
  EXPECT_EQ(ParseCompressionMethod("LZ4"), CompressionMethod::kLz4);
  EXPECT_EQ(ParseCompressionMethod("zstd"), CompressionMethod::kZstd);
  EXPECT_EQ(ParseCompressionMethod("None"), CompressionMethod::kNone);
  EXPECT_EQ(CodeOf([] { ParseCompressionMethod("gzip"); }), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace rowbridge::clickhouse
