// Times as the status JSON renders them: unix milliseconds inside, RFC 3339 (UTC, milliseconds)
// outside, null for "never".
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace rowbridge::server {

int64_t UnixMs(std::chrono::system_clock::time_point t);

// "2026-01-02T03:04:05.000Z", or null for 0 (never).
nlohmann::ordered_json TimestampJson(int64_t unix_ms);

}  // namespace rowbridge::server
