// TcpConnection: a blocking client connection over a POSIX socket, optionally upgraded in place to
// TLS (OpenSSL 3). Every wait is bounded: connecting by TcpOptions::connect_timeout, each read by
// read_timeout and each write by write_timeout. Failures throw Error(kNetwork) or Error(kTimeout)
// whose message names the peer ("host:port") and the operation that failed.
//
// The connection buffers reads internally, so many small ReadExact calls (packet headers) cost
// one system call per buffer refill, not one per call.
//
// Protocol-neutral: MySQL upgrades mid-handshake (StartTls after the SSL request packet),
// ClickHouse upgrades right after connecting. Not thread-safe; one thread uses a connection.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

// OpenSSL types, declared here so users of this header need not include OpenSSL.
struct ssl_ctx_st;
struct ssl_st;

namespace rowbridge {

enum class TlsMode {
  kDisabled,        // never TLS
  kPreferred,       // TLS if the peer offers it, no certificate checks (the caller decides)
  kRequired,        // TLS or fail; no certificate checks
  kVerifyCa,        // TLS, the peer's chain must verify against ca_file (or the system store)
  kVerifyIdentity,  // kVerifyCa and the certificate must name the host we connected to
};

// Parses "disabled", "preferred", "required", "verify-ca", "verify-identity" (also with '_');
// throws Error(kInvalidArgument) otherwise.
TlsMode ParseTlsMode(std::string_view text);
const char* TlsModeName(TlsMode mode);

struct TlsOptions {
  TlsMode mode = TlsMode::kDisabled;
  std::string ca_file;    // PEM CA bundle; empty = the system default store
  std::string cert_file;  // PEM client certificate (optional)
  std::string key_file;   // PEM client key (optional, defaults to cert_file)
  // Name sent as SNI and checked by kVerifyIdentity; empty = the host passed to Connect.
  std::string server_name;
};

struct TcpOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds read_timeout{60'000};
  std::chrono::milliseconds write_timeout{60'000};
  bool no_delay = true;  // TCP_NODELAY: our protocols are request/response
};

class TcpConnection {
 public:
  // Resolves `host` (IPv4/IPv6 literal or name), tries each address in turn within the connect
  // timeout, and returns the first that connects.
  static std::unique_ptr<TcpConnection> Connect(const std::string& host, uint16_t port,
                                                const TcpOptions& options);
  // Whether every address of `host` refuses a connection to `port` right now (within the
  // connect timeout): no process listens there. A timeout, an unreachable network or a name that
  // does not resolve is not "nothing listens": something may still run behind them.
  static bool NothingListens(const std::string& host, uint16_t port, const TcpOptions& options);
  ~TcpConnection();
  TcpConnection(const TcpConnection&) = delete;
  TcpConnection& operator=(const TcpConnection&) = delete;

  // Performs the TLS handshake on the open connection (mode must not be kDisabled). All later
  // reads and writes are encrypted. Throws kNetwork naming the TLS failure (certificate not
  // trusted, name mismatch, handshake error).
  void StartTls(const TlsOptions& tls);
  bool tls_active() const { return ssl_ != nullptr; }
  // Negotiated protocol and cipher ("TLSv1.3 TLS_AES_256_GCM_SHA384"); empty without TLS.
  std::string TlsDescription() const;

  // Reads exactly `size` bytes. The peer closing first is Error(kNetwork).
  void ReadExact(void* buffer, size_t size);
  // Reads at least one and at most `size` bytes (size > 0).
  size_t ReadSome(void* buffer, size_t size);
  void WriteAll(const void* data, size_t size);
  void WriteAll(std::string_view data) { WriteAll(data.data(), data.size()); }

  // Zero-copy reading for framers (MySQL packets): the bytes received and not yet consumed, where
  // they lie in the read buffer. Valid until the next read of any kind; Consume(n) takes the first
  // n of them (n <= Buffered().size()).
  std::string_view Buffered() const {
    return {reinterpret_cast<const char*>(read_buffer_.get()) + read_pos_, read_end_ - read_pos_};
  }
  void Consume(size_t n) { read_pos_ += n; }
  // Whether bytes wait to be read: received and not consumed, held by TLS, or in the socket's
  // receive buffer. Never blocks (a poll with no timeout at most).
  bool HasInput() const;
  // Moves the unconsumed bytes to the front of the read buffer and blocks until at least one more
  // byte is buffered (the same timeout and errors as ReadSome). Returns false, reading nothing,
  // when the buffer is already full of unconsumed bytes.
  bool FillBuffer();
  // How many bytes Buffered() can hold at most.
  static size_t BufferCapacity();

  // Changes the bound on each later read (e.g. a replication stream uses a multiple of its
  // heartbeat period).
  void set_read_timeout(std::chrono::milliseconds timeout) { options_.read_timeout = timeout; }
  std::chrono::milliseconds read_timeout() const { return options_.read_timeout; }

  // Sends TLS close_notify (best effort) and closes the socket. Idempotent; later I/O fails.
  void Close();
  // The one call that may come from ANOTHER thread while this one blocks in a read or write:
  // shuts the socket down so the blocked call fails at once with Error(kNetwork). The caller
  // must make sure the connection is not closed or destroyed concurrently.
  void Interrupt();
  bool is_open() const { return fd_ >= 0; }

  // "host:port" as given to Connect (IPv6 hosts in brackets), for error messages.
  const std::string& peer() const { return peer_; }
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }

 private:
  TcpConnection(int fd, std::string host, uint16_t port, const TcpOptions& options);

  // Raw (TLS-aware) I/O without the read buffer.
  size_t ReadRaw(void* buffer, size_t size, const char* operation);
  // Waits until the socket is readable/writable or the deadline passes.
  void WaitFor(short events, std::chrono::steady_clock::time_point deadline, const char* operation,
               std::chrono::milliseconds timeout);
  [[noreturn]] void FailTls(const char* operation, int ssl_error);

  int fd_ = -1;
  std::string host_;
  uint16_t port_;
  std::string peer_;
  TcpOptions options_;
  ::ssl_ctx_st* ssl_ctx_ = nullptr;
  ::ssl_st* ssl_ = nullptr;

  std::unique_ptr<uint8_t[]> read_buffer_;
  size_t read_pos_ = 0;
  size_t read_end_ = 0;
};

}  // namespace rowbridge
