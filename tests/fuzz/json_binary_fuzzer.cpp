// libFuzzer target: arbitrary bytes as a binary JSON document and as a JSON diff. Error is the
// expected outcome for garbage; anything else (crash, sanitizer report, other exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "binlog/json_binary.h"
#include "common/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rowbridge::binlog;
  std::string out;
  try {
    AppendJsonBinaryText(data, size, out);
  } catch (const rowbridge::Error&) {
  }
  out.clear();
  try {
    AppendJsonBinaryForMysqlbinlog(data, size, out);
  } catch (const rowbridge::Error&) {
  }
  out.clear();
  try {
    AppendJsonDiffText(data, size, 1, out);
  } catch (const rowbridge::Error&) {
  }
  return 0;
}
