// Our compressed frames against Debian's clickhouse-compressor (clickhouse-tools 18.16), both
// directions and both codecs: it must decode what we write, and we must decode what it writes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "clickhouse/compression.h"

namespace rowbridge::clickhouse {
namespace {

namespace fs = std::filesystem;

const char* kCompressor = "/usr/bin/clickhouse-compressor";

#define REQUIRE_COMPRESSOR()                                                                 \
  do {                                                                                       \
    if (!fs::exists(kCompressor)) {                                                          \
      GTEST_SKIP() << "\n\n*** " << kCompressor                                              \
                   << " NOT FOUND (Debian package clickhouse-tools); this test did NOT run " \
                      "***\n";                                                               \
    }                                                                                        \
  } while (0)

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const fs::path& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/rowbridge-chc-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void RunShell(const std::string& command) {
  int rc = std::system(command.c_str());
  ASSERT_EQ(rc, 0) << command;
}

// About 3 MiB of half-compressible data, so ClickHouse cuts it into several 1 MiB frames.
std::string Payload() {
  std::mt19937_64 rng(7);
  std::string s;
  s.reserve(3 << 20);
  for (size_t i = 0; s.size() < (3u << 20) + 12345; ++i) {
    if (i % 3 == 0) {
      uint64_t r = rng();
      s.append(reinterpret_cast<const char*>(&r), 8);
    } else {
      s += "row " + std::to_string(i) + " of the payload\n";
    }
  }
  return s;
}

TEST(ClickHouseCompressorInterop, TheyDecodeOurFrames) {
  REQUIRE_COMPRESSOR();
  TempDir dir;
  const std::string data = Payload();
  for (CompressionMethod method :
       {CompressionMethod::kNone, CompressionMethod::kLz4, CompressionMethod::kZstd}) {
    FrameCodec codec(method, 3);
    std::string frames;
    codec.Compress(data, frames);
    WriteFile(dir.path() / "ours.chc", frames);
    RunShell(fmt::format("{} -d < {} > {}", kCompressor, (dir.path() / "ours.chc").string(),
                         (dir.path() / "back.bin").string()));
    EXPECT_TRUE(ReadFile(dir.path() / "back.bin") == data) << CompressionMethodName(method);
  }
}

TEST(ClickHouseCompressorInterop, WeDecodeTheirFrames) {
  REQUIRE_COMPRESSOR();
  TempDir dir;
  const std::string data = Payload();
  WriteFile(dir.path() / "in.bin", data);
  for (const char* flags : {"--none", "", "--hc", "--zstd"}) {
    RunShell(fmt::format("{} {} < {} > {}", kCompressor, flags, (dir.path() / "in.bin").string(),
                         (dir.path() / "theirs.chc").string()));
    std::string frames = ReadFile(dir.path() / "theirs.chc");
    FrameCodec codec;
    std::string back;
    codec.DecompressAll(frames, back, FrameLimits{}, "clickhouse-compressor output");
    EXPECT_TRUE(back == data) << "flags '" << flags << "'";
    // Their checksums are CityHash128 v1.0.2 of each frame: re-compressing with the same codec
    // need not give identical bytes, but our codec must have accepted every checksum above.
  }
}

}  // namespace
}  // namespace rowbridge::clickhouse
