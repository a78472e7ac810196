// A ClickHouse of one test's own (testservers.sh start --no-mariadb), for tests that stop and
// restart it mid-stream. The destructor stops it and deletes its directory (kept with
// ROWBRIDGE_KEEP_TEST_SERVERS=1); a watchdog stops it if the test process dies.
#pragma once

#include <filesystem>

#include "support/test_servers.h"

namespace rowbridge::testing {

class ScopedClickHouse {
 public:
  ScopedClickHouse();
  ~ScopedClickHouse();
  ScopedClickHouse(const ScopedClickHouse&) = delete;
  ScopedClickHouse& operator=(const ScopedClickHouse&) = delete;

  const ClickHouseAddress& address() const { return address_; }
  std::string Sql(std::string_view sql) const { return RunClickHouseSql(address_, sql); }

  // TERM, wait (KILL after the script's timeout).
  void Stop();
  // Starts it again on the same data and ports; returns once it answers.
  void Start();

 private:
  void ReadAddress();

  std::filesystem::path dir_;
  ClickHouseAddress address_;
};

}  // namespace rowbridge::testing
