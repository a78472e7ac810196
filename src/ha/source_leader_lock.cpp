#include "ha/source_leader_lock.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/error.h"
#include "endpoints/connection_options.h"
#include "mysql/sql_quote.h"

namespace rowbridge::ha {

namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

// The server drops the lock's connection after this many seconds without a query: 2 x lease,
// rounded up (wait_timeout counts whole seconds).
uint64_t SilenceSeconds(milliseconds lease) {
  return std::max<uint64_t>(2, (2 * static_cast<uint64_t>(lease.count()) + 999) / 1000);
}

}  // namespace

SourceLeaderLock::SourceLeaderLock(const config::Config& config, const std::string& job)
    // GET_LOCK itself waits a second for the lock: no pause between attempts.
    : LeaderLock("rowbridge:" + job, config.ha.lease, milliseconds(0)), config_(config) {}

SourceLeaderLock::~SourceLeaderLock() {
  Release();
}

std::optional<std::string> SourceLeaderLock::TryTake() {
  const milliseconds lease = lease_.length();
  const std::string quoted = mysql::QuoteString(name());
  if (connection_ == nullptr) {
    mysql::ConnectOptions options = endpoints::SourceConnectOptions(config_.source);
    // GET_LOCK waits a second on the server; a confirmation must come back within the lease.
    options.tcp.read_timeout = lease + milliseconds(2000);
    options.program_name = "rowbridge leader lock";
    connection_ = mysql::Connection::Connect(options);
    connection_->Execute(fmt::format("SET SESSION wait_timeout = {}", SilenceSeconds(lease)));
  }
  const auto sent = SteadyClock::now();
  const std::optional<std::string> got =
      connection_->QueryValue(fmt::format("SELECT GET_LOCK({}, 1)", quoted));
  if (!got) {
    // The server could not take the lock this time (e.g. killed while waiting): try again.
    throw Error(ErrorCode::kServer,
                fmt::format("GET_LOCK({}) on {} answered NULL (an error in the server)", quoted,
                            connection_->peer()),
                Transience::kTransient);
  }
  if (*got == "1") {
    // Any failure to confirm loses the lock at once: the connection may be gone with it.
    lease_.Start(
        sent, [this] { Confirm(); }, milliseconds(0));
    spdlog::info("leader: holding the lock {} on {} (connection {})", name(), connection_->peer(),
                 connection_->connection_id());
    return std::nullopt;
  }
  const std::optional<std::string> holder =
      connection_->QueryValue(fmt::format("SELECT IS_USED_LOCK({})", quoted));
  return fmt::format("standby: the leader lock {} on {} is held by connection {}", name(),
                     connection_->peer(), holder.value_or("?"));
}

std::string SourceLeaderLock::Where() const {
  return fmt::format("{}:{}", config_.source.host, config_.source.port);
}

void SourceLeaderLock::Confirm() {
  const std::optional<std::string> mine = connection_->QueryValue(
      fmt::format("SELECT IS_USED_LOCK({}) = CONNECTION_ID()", mysql::QuoteString(name())));
  if (!mine || *mine != "1") {
    throw Error(ErrorCode::kServer,
                fmt::format("the source {} no longer gives the lock to this process's connection",
                            connection_->peer()),
                Transience::kPermanent);
  }
}

void SourceLeaderLock::Release() {
  const bool held = lease_.held();
  lease_.Stop();
  if (connection_ != nullptr && held) {
    try {
      connection_->QueryValue(fmt::format("SELECT RELEASE_LOCK({})", mysql::QuoteString(name())));
    } catch (const Error& e) {
      spdlog::warn("releasing the leader lock {}: {}", name(), e.what());
    }
  }
  connection_.reset();
}

}  // namespace rowbridge::ha
