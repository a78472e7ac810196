// Fuzzes what a ClickHouse server sends: the Hello, every packet after it (Data/Totals/Extremes/
// Log blocks, exceptions, progress, profile info, table columns), with and without compressed
// blocks, and the compressed-frame decoder itself. The first input byte picks the mode and the
// negotiated revision. rowbridge::Error is the expected outcome for garbage; anything else
// (crash, sanitizer report, other exception, runaway allocation) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "clickhouse/cityhash.h"
#include "clickhouse/compression.h"
#include "clickhouse/packets.h"
#include "clickhouse/wire.h"
#include "common/error.h"

namespace {

using namespace rowbridge;
using namespace rowbridge::clickhouse;

FrameLimits Limits() {
  FrameLimits limits;
  limits.max_compressed_size = 1u << 20;
  limits.max_uncompressed_size = 4u << 20;
  return limits;
}

void ReadPackets(std::string_view data, uint64_t revision, bool compressed) {
  BufferWireReader source(data);
  PacketReader reader(source, revision, Limits(), "fuzz:9000");
  reader.StartQuery(compressed);
  ServerPacketData packet;
  // Bounded: each packet consumes at least one byte.
  while (!source.AtEnd()) {
    reader.Next(packet);
    if (packet.type == ServerPacket::kException) {
      (void)ServerExceptionError(packet.exception, "fuzz:9000");
    }
  }
}

// Frames whose checksums are made valid first, so the fuzzer reaches the LZ4/ZSTD decoders
// and the size checks behind the checksum.
void DecompressWithFixedChecksums(std::string_view data) {
  std::string frames(data);
  size_t pos = 0;
  while (frames.size() - pos >= kFramePrefixSize) {
    uint32_t compressed_size;
    std::memcpy(&compressed_size, frames.data() + pos + kChecksumSize + 1, 4);
    if (compressed_size < kFrameHeaderSize ||
        compressed_size > frames.size() - pos - kChecksumSize) {
      break;
    }
    CityHash128Value sum = CityHash128(frames.data() + pos + kChecksumSize, compressed_size);
    std::memcpy(frames.data() + pos, &sum.low, 8);
    std::memcpy(frames.data() + pos + 8, &sum.high, 8);
    pos += kChecksumSize + compressed_size;
  }
  FrameCodec codec;
  std::string out;
  codec.DecompressAll(frames, out, Limits(), "fuzz frames");
}

void Run(std::string_view data) {
  if (data.empty()) return;
  const uint8_t selector = static_cast<uint8_t>(data[0]);
  const std::string_view payload = data.substr(1);
  // 54412 is ClickHouse 18.16; 54429 is what we announce; 54032 the oldest we accept.
  const uint64_t revisions[] = {54412, kClientRevision, 54032, 54420};
  const uint64_t revision = revisions[(selector >> 4) % 4];
  try {
    switch (selector % 5) {
      case 0: {
        BufferWireReader in(payload);
        (void)ReadServerHello(in, revision);
        break;
      }
      case 1:
        ReadPackets(payload, revision, false);
        break;
      case 2:
        ReadPackets(payload, revision, true);
        break;
      case 3: {
        FrameCodec codec;
        std::string out;
        codec.DecompressAll(payload, out, Limits(), "fuzz frames");
        break;
      }
      case 4:
        DecompressWithFixedChecksums(payload);
        break;
    }
  } catch (const Error&) {
    // Expected for malformed input.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
