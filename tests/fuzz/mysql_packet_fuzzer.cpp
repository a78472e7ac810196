// Fuzzes the parsers of bytes a MySQL server sends: the greeting, auth switch, OK, ERR, column
// definitions and text rows. The first input byte picks the parser. Error is the expected outcome
// for garbage; anything else (crash, sanitizer report, other exception) is a bug. Packet framing
// (PacketChannel) needs a socket and is covered by unit tests instead.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "mysql/messages.h"

namespace {

using namespace rowbridge;
using namespace rowbridge::mysql;

void ParseAll(std::string_view data) {
  if (data.empty()) return;
  const std::string_view payload = data.substr(1);
  try {
    switch (static_cast<uint8_t>(data[0]) % 7) {
      case 0:
        ParseGreeting(payload, "fuzz:1");
        break;
      case 1:
        ParseAuthSwitch(payload, "fuzz:1");
        break;
      case 2:
        ParseOk(payload, "fuzz:1");
        break;
      case 3:
        ThrowServerError(payload, "fuzz:1");
        break;
      case 4:
        ParseColumnDefinition(payload, "fuzz:1");
        break;
      case 5: {
        size_t columns = payload.empty() ? 0 : static_cast<uint8_t>(payload[0]) % 16;
        std::vector<std::string_view> fields(columns);
        std::vector<uint8_t> nulls(columns);
        ParseTextRow(payload.substr(payload.empty() ? 0 : 1), fields, nulls, "fuzz:1");
        for (size_t i = 0; i < columns; ++i) {
          // Views must lie inside the payload.
          if (!fields[i].empty() &&
              (fields[i].data() < payload.data() ||
               fields[i].data() + fields[i].size() > payload.data() + payload.size())) {
            __builtin_trap();
          }
        }
        break;
      }
      case 6:
        IsEndOfRows(payload);
        break;
    }
  } catch (const Error&) {
    // Expected for malformed input.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ParseAll(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
