// Test helper: talks to the test ClickHouse server through clickhouse-client, so column and block
// encodings can be checked against a real server without rowbridge's own protocol client.
// `FORMAT Native` over clickhouse-client is exactly WriteBlock/ReadBlock at revision 0.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace rowbridge::testing {

struct ClickHouseCliAddress {
  std::string host;
  std::string port;  // native TCP port
};

// Reads ROWBRIDGE_TEST_CH_HOST/PORT; empty host when unset.
ClickHouseCliAddress ClickHouseCliFromEnv();

// Runs `clickhouse-client --query <query> [extra args]` with `input` on stdin and returns stdout;
// throws rowbridge::Error naming the query and clickhouse-client's stderr on failure.
std::string RunClickHouseClient(const ClickHouseCliAddress& address, const std::string& query,
                                const std::string& input = {},
                                const std::vector<std::string>& extra_args = {});

// Splits clickhouse-client's TSV output into rows of fields (still escaped).
std::vector<std::vector<std::string>> SplitTsv(const std::string& text);
// ClickHouse's TSV escaping of one value.
std::string EscapeTsv(const std::string& value);

}  // namespace rowbridge::testing

#define ROWBRIDGE_REQUIRE_CLICKHOUSE(address)                                                 \
  do {                                                                                        \
    if ((address).host.empty()) {                                                             \
      GTEST_SKIP() << "\n\n*** ROWBRIDGE_TEST_CH_HOST/PORT NOT SET (start the test servers "  \
                      "with tests/servers/testservers.sh); this ClickHouse test did NOT run " \
                      "***\n";                                                                \
    }                                                                                         \
  } while (0)
