// Test helper: talks to the test ClickHouse server through clickhouse-client, so column and block
// encodings can be checked against a real server without rowbridge's own protocol client.
// `FORMAT Native` over clickhouse-client is exactly WriteBlock/ReadBlock at revision 0.
#pragma once

#include <string>
#include <vector>

#include "support/test_servers.h"

namespace rowbridge::testing {

// Runs `clickhouse-client --query <query> [extra args]` (as the address's user) with `input` on
// stdin and returns stdout; throws rowbridge::Error naming the query and clickhouse-client's stderr
// on failure.
std::string RunClickHouseClient(const ClickHouseAddress& address, const std::string& query,
                                const std::string& input = {},
                                const std::vector<std::string>& extra_args = {});

// Splits clickhouse-client's TSV output into rows of fields (still escaped).
std::vector<std::vector<std::string>> SplitTsv(const std::string& text);
// ClickHouse's TSV escaping of one value.
std::string EscapeTsv(const std::string& value);

}  // namespace rowbridge::testing
