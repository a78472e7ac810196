#include "seed_binlog.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rowbridge::bench {
namespace {

namespace fs = std::filesystem;

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

// Shell single-quoting, for the one command line we run.
std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

SeedBinlog Load() {
  SeedBinlog seed;
  std::error_code ec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  const std::string rows = EnvOr("ROWBRIDGE_BENCH_SEED_ROWS", "500000");
  seed.path = EnvOr("ROWBRIDGE_BENCH_SEED_BINLOG",
                    (exe_dir / "bench-data" / fmt::format("seed_rows_{}.binlog", rows)).string());
  if (!fs::exists(seed.path)) {
    const std::string loadgen =
        EnvOr("ROWBRIDGE_LOADGEN", (exe_dir / "rowbridge-loadgen").string());
    const std::string command =
        fmt::format("bash {} --rows {} --loadgen {} {} 1>&2",
                    Quote(std::string(ROWBRIDGE_SOURCE_DIR) + "/bench/make_seed_binlog.sh"),
                    Quote(rows), Quote(loadgen), Quote(seed.path));
    std::fprintf(stderr, "seed binlog %s missing; generating it:\n  %s\n", seed.path.c_str(),
                 command.c_str());
    const int status = std::system(command.c_str());
    if (status != 0 || !fs::exists(seed.path)) {
      seed.error = fmt::format("could not generate the seed binlog {} (exit status {}); run {}",
                               seed.path, status, command);
      return seed;
    }
  }
  std::ifstream in(seed.path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in) {
    seed.error = fmt::format("cannot read the seed binlog {}", seed.path);
    return seed;
  }
  seed.bytes = std::move(content).str();
  return seed;
}

}  // namespace

const SeedBinlog& LoadSeedBinlog() {
  static const SeedBinlog seed = Load();
  return seed;
}

}  // namespace rowbridge::bench
