// rowbridge reports every failure the same way: by throwing rowbridge::Error. Functions never
// return error codes or half-filled results. An Error carries a category (ErrorCode), a message
// that names what went wrong and where (file offset, host:port, table, column, config key), and,
// for errors a server sent, the server's own error number and SQLSTATE.
//
// Callers that can recover (the pipeline reconnecting after a network fault) catch Error and look
// at IsTransient(); everything else lets it propagate to the command, which prints it and exits.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace rowbridge {

enum class ErrorCode {
  kInvalidArgument,  // a caller passed something meaningless (bad flag, bad GTID text)
  kConfig,           // the configuration file or a setting on a server is wrong
  kCorruption,       // bytes from a file or the network do not follow the format
  kProtocol,         // a peer broke the protocol (unexpected packet, bad handshake)
  kServer,           // a server answered with an error (server_code/sql_state are set)
  kNetwork,          // connect/read/write failed or the peer closed the connection
  kTimeout,          // a bounded wait ran out (connect, read, heartbeat)
  kUnsupported,      // a valid input we do not handle (yet); never silently skipped
  kConversion,       // a value cannot be carried into the target type under the chosen policy
  kIo,               // local file system
  kInternal,         // a broken invariant in rowbridge itself
  kFenced,           // this process lost its leader lock and may not write (common/write_fence.h)
};

const char* ErrorCodeName(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Error(ErrorCode code, const std::string& message, int server_code, std::string sql_state)
      : std::runtime_error(message),
        code_(code),
        server_code_(server_code),
        sql_state_(std::move(sql_state)) {}

  ErrorCode code() const { return code_; }
  // The server's own error number (MySQL errno, ClickHouse exception code); 0 if none.
  int server_code() const { return server_code_; }
  // MySQL SQLSTATE, empty if none.
  const std::string& sql_state() const { return sql_state_; }

  // Network faults and timeouts are worth a reconnect; everything else needs a human.
  bool IsTransient() const { return code_ == ErrorCode::kNetwork || code_ == ErrorCode::kTimeout; }

 private:
  ErrorCode code_;
  int server_code_ = 0;
  std::string sql_state_;
};

// Throws Error(code, formatted message).
template <typename... Args>
[[noreturn]] void Fail(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(code, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace rowbridge
