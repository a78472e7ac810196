// rowbridge reports every failure the same way: by throwing rowbridge::Error. Functions never
// return error codes or half-filled results. An Error carries a category (ErrorCode), a message
// that names what went wrong and where (file offset, host:port, table, column, config key), and,
// for errors a server sent, the server's own error number and SQLSTATE.
//
// Whether an error is transient (a retry can cure it) is decided once, where the error is built:
// network faults and timeouts are, server errors are when their code is in the table of
// common/server_errors.h, a failed TLS certificate check is not. Every retry loop
// (common/retry.h) asks IsTransient() and nothing else; everything else lets the error propagate
// to the command, which prints it and exits.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>
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
  kSourceChanged,    // the source changed what a running job had fixed (a table altered while it
                     // was copied): doing the job again from the start sees the change
};

const char* ErrorCodeName(ErrorCode code);

// Whether retrying the failed operation later can succeed without a human.
enum class Transience { kTransient, kPermanent };

// The transience of an error of `code` when its builder says nothing more: network faults and
// timeouts are transient, everything else permanent.
constexpr Transience DefaultTransience(ErrorCode code) {
  return code == ErrorCode::kNetwork || code == ErrorCode::kTimeout ? Transience::kTransient
                                                                    : Transience::kPermanent;
}

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : Error(code, message, 0, "", DefaultTransience(code)) {}
  Error(ErrorCode code, const std::string& message, Transience transience)
      : Error(code, message, 0, "", transience) {}
  Error(ErrorCode code, const std::string& message, int server_code, std::string sql_state)
      : Error(code, message, server_code, std::move(sql_state), DefaultTransience(code)) {}
  Error(ErrorCode code, const std::string& message, int server_code, std::string sql_state,
        Transience transience)
      : std::runtime_error(message),
        code_(code),
        server_code_(server_code),
        sql_state_(std::move(sql_state)),
        transience_(transience) {}

  // The same error (category, server code, SQLSTATE, transience) with another message, e.g. one
  // that says where it happened around the original text.
  Error WithMessage(const std::string& message) const {
    return Error(code_, message, server_code_, sql_state_, transience_);
  }

  ErrorCode code() const { return code_; }
  // The server's own error number (MySQL errno, ClickHouse exception code); 0 if none.
  int server_code() const { return server_code_; }
  // MySQL SQLSTATE, empty if none.
  const std::string& sql_state() const { return sql_state_; }

  // Worth a retry (after a backoff): decided where the error was built (see the top).
  bool IsTransient() const { return transience_ == Transience::kTransient; }
  Transience transience() const { return transience_; }

 private:
  ErrorCode code_;
  int server_code_ = 0;
  std::string sql_state_;
  Transience transience_;
};

// The exception being handled (call only inside a catch block) as an Error whose message starts
// with `where` (the thread and what it was doing): an Error keeps its category and transience, a
// std::bad_alloc becomes kInternal "out of memory", any other exception kInternal with its what().
// Threads use it so that whatever escapes their work takes the one error path instead of
// std::terminate.
Error CurrentExceptionAsError(std::string_view where);

// Throws Error(code, formatted message).
template <typename... Args>
[[noreturn]] void Fail(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(code, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace rowbridge
