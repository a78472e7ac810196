// Fuzzes ReadBlock (the decoder of Data packet bodies and FORMAT Native) with arbitrary bytes.
// The first input byte picks the protocol revision. Every decoded block is also rendered as text
// and written back, so column contents that passed decoding are exercised too. rowbridge::Error
// is the expected outcome for malformed input; anything else (crash, sanitizer report, other
// exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "clickhouse/block.h"
#include "common/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rowbridge::clickhouse;
  if (size == 0) return 0;
  static constexpr uint64_t kRevisions[] = {0, 54429, 54454};
  uint64_t revision = kRevisions[data[0] % 3];
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  BufferWireReader in(bytes);
  try {
    for (int blocks = 0; blocks < 8 && !in.AtEnd(); ++blocks) {
      Block block = ReadBlock(in, revision);
      size_t rows = block.RowCount();
      std::string text;
      for (size_t c = 0; c < block.ColumnCount(); ++c) {
        for (size_t r = 0; r < rows; ++r) {
          text.clear();
          block.At(c).AppendText(r, text);
        }
      }
      WireWriter out;
      WriteBlock(out, block, revision);
    }
  } catch (const rowbridge::Error&) {
  }
  return 0;
}
