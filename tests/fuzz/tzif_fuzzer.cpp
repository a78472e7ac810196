// libFuzzer target for the TZif parser (mapping/time_zone.h): any bytes must either give a zone
// whose lookups terminate or throw rowbridge::Error. POSIX TZ footers are fuzzed through it too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "mapping/time_zone.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    auto zone = rowbridge::mapping::TimeZone::FromTzif("fuzz", bytes);
    for (int64_t t : {int64_t{-5000000000}, int64_t{0}, int64_t{1700000000}, int64_t{4000000000},
                      int64_t{10000000000}}) {
      (void)zone->OffsetAt(t);
      (void)zone->LocalToUtc(t);
    }
  } catch (const rowbridge::Error&) {
  }
  try {
    (void)rowbridge::mapping::ParsePosixTz(bytes, "fuzz");
  } catch (const rowbridge::Error&) {
  }
  return 0;
}
