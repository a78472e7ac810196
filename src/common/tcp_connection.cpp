#include "common/tcp_connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace rowbridge {
namespace {

using Clock = std::chrono::steady_clock;

// Large enough that a replication stream's row events (8 KiB by default) are nearly always whole
// in it, so PacketChannel hands them out without a copy, and that a fast stream costs few reads.
constexpr size_t kReadBufferSize = 256 * 1024;

std::string ErrnoText(int err) {
  return std::strerror(err);
}

std::string FormatPeer(const std::string& host, uint16_t port) {
  if (host.find(':') != std::string::npos) return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

bool IsIpLiteral(const std::string& host) {
  in6_addr a6;
  in_addr a4;
  return inet_pton(AF_INET, host.c_str(), &a4) == 1 || inet_pton(AF_INET6, host.c_str(), &a6) == 1;
}

int MillisLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

// Drains OpenSSL's error queue into one message.
std::string OpenSslErrors() {
  std::string text;
  while (unsigned long code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (!text.empty()) text += "; ";
    text += buf;
  }
  return text;
}

// A socket BIO that sends with MSG_NOSIGNAL: OpenSSL's own socket BIO uses write(), which raises
// SIGPIPE (killing the process) when the peer has gone. The fd is non-blocking; EAGAIN becomes a
// retry so SSL_* report WANT_READ/WANT_WRITE and we poll.
int BioWrite(BIO* bio, const char* data, int size) {
  int fd = static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio)));
  BIO_clear_retry_flags(bio);
  ssize_t n = ::send(fd, data, static_cast<size_t>(size), MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_write(bio);
  }
  return static_cast<int>(n);
}

int BioRead(BIO* bio, char* data, int size) {
  int fd = static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio)));
  BIO_clear_retry_flags(bio);
  ssize_t n = ::recv(fd, data, static_cast<size_t>(size), 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_read(bio);
  }
  return static_cast<int>(n);
}

long BioCtrl(BIO*, int cmd, long, void*) {
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

int BioCreate(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

BIO_METHOD* NoSignalSocketMethod() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "rowbridge socket");
    BIO_meth_set_write(m, BioWrite);
    BIO_meth_set_read(m, BioRead);
    BIO_meth_set_ctrl(m, BioCtrl);
    BIO_meth_set_create(m, BioCreate);
    return m;
  }();
  return method;
}

}  // namespace

TlsMode ParseTlsMode(std::string_view text) {
  std::string t(text);
  std::replace(t.begin(), t.end(), '_', '-');
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "disabled") return TlsMode::kDisabled;
  if (t == "preferred") return TlsMode::kPreferred;
  if (t == "required") return TlsMode::kRequired;
  if (t == "verify-ca") return TlsMode::kVerifyCa;
  if (t == "verify-identity") return TlsMode::kVerifyIdentity;
  Fail(ErrorCode::kInvalidArgument,
       "unknown TLS mode '{}' (expected disabled, preferred, required, verify-ca or "
       "verify-identity)",
       text);
}

const char* TlsModeName(TlsMode mode) {
  switch (mode) {
    case TlsMode::kDisabled:
      return "disabled";
    case TlsMode::kPreferred:
      return "preferred";
    case TlsMode::kRequired:
      return "required";
    case TlsMode::kVerifyCa:
      return "verify-ca";
    case TlsMode::kVerifyIdentity:
      return "verify-identity";
  }
  return "?";
}

namespace {

// The outcome of trying every address of a host once.
struct ConnectAttempt {
  int fd = -1;               // the connected socket, or -1
  std::string failures;      // "address: why; ..." of the addresses that failed
  bool timed_out = false;    // the connect timeout ran out
  bool all_refused = false;  // at least one address, and each refused the connection
};

ConnectAttempt TryConnect(const std::string& host, uint16_t port, const TcpOptions& options) {
  const std::string peer = FormatPeer(host, port);
  const auto deadline = Clock::now() + options.connect_timeout;

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* list = nullptr;
  std::string port_text = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), port_text.c_str(), &hints, &list);
  if (rc != 0 && rc == EAI_ADDRFAMILY) {
    hints.ai_flags = 0;
    rc = getaddrinfo(host.c_str(), port_text.c_str(), &hints, &list);
  }
  if (rc != 0) {
    Fail(ErrorCode::kNetwork, "cannot resolve {}: {}", peer,
         rc == EAI_SYSTEM ? ErrnoText(errno) : gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(list, freeaddrinfo);

  ConnectAttempt attempt;
  size_t refused = 0;
  size_t tried = 0;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    char address[INET6_ADDRSTRLEN] = "?";
    const void* raw =
        ai->ai_family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr);
    inet_ntop(ai->ai_family, raw, address, sizeof address);
    auto note = [&](const std::string& why) {
      if (!attempt.failures.empty()) attempt.failures += "; ";
      attempt.failures += fmt::format("{}: {}", address, why);
    };

    ++tried;
    int fd =
        ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      note(ErrnoText(errno));
      continue;
    }
    int err = 0;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        int ready;
        do {
          ready = ::poll(&p, 1, MillisLeft(deadline));
        } while (ready < 0 && errno == EINTR);
        if (ready == 0) {
          err = ETIMEDOUT;
          attempt.timed_out = true;
        } else if (ready < 0) {
          err = errno;
        } else {
          socklen_t len = sizeof err;
          if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
        }
      }
    }
    if (err != 0) {
      ::close(fd);
      if (err == ECONNREFUSED) ++refused;
      note(attempt.timed_out ? "timed out" : ErrnoText(err));
      if (attempt.timed_out) break;
      continue;
    }
    if (options.no_delay) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    attempt.fd = fd;
    return attempt;
  }
  attempt.all_refused = tried > 0 && refused == tried;
  return attempt;
}

}  // namespace

std::unique_ptr<TcpConnection> TcpConnection::Connect(const std::string& host, uint16_t port,
                                                      const TcpOptions& options) {
  const ConnectAttempt attempt = TryConnect(host, port, options);
  if (attempt.fd >= 0) {
    return std::unique_ptr<TcpConnection>(new TcpConnection(attempt.fd, host, port, options));
  }
  const std::string peer = FormatPeer(host, port);
  if (attempt.timed_out) {
    Fail(ErrorCode::kTimeout, "connect to {} timed out after {} ms ({})", peer,
         options.connect_timeout.count(), attempt.failures);
  }
  Fail(ErrorCode::kNetwork, "cannot connect to {}: {}", peer,
       attempt.failures.empty() ? "no addresses" : attempt.failures);
}

bool TcpConnection::NothingListens(const std::string& host, uint16_t port,
                                   const TcpOptions& options) {
  ConnectAttempt attempt;
  try {
    attempt = TryConnect(host, port, options);
  } catch (const Error&) {
    return false;  // not resolvable: not known to be down
  }
  if (attempt.fd >= 0) ::close(attempt.fd);
  return attempt.all_refused;
}

TcpConnection::TcpConnection(int fd, std::string host, uint16_t port, const TcpOptions& options)
    : fd_(fd),
      host_(std::move(host)),
      port_(port),
      peer_(FormatPeer(host_, port)),
      options_(options),
      read_buffer_(new uint8_t[kReadBufferSize]) {}

TcpConnection::~TcpConnection() {
  Close();
}

void TcpConnection::Close() {
  if (ssl_ != nullptr) {
    if (fd_ >= 0) SSL_shutdown(ssl_);  // best effort: non-blocking, we do not wait for the reply
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  if (ssl_ctx_ != nullptr) {
    SSL_CTX_free(ssl_ctx_);
    ssl_ctx_ = nullptr;
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  ERR_clear_error();
}

void TcpConnection::Interrupt() {
  const int fd = fd_;
  if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
}

void TcpConnection::WaitFor(short events, Clock::time_point deadline, const char* operation,
                            std::chrono::milliseconds timeout) {
  pollfd p{fd_, events, 0};
  for (;;) {
    int ready = ::poll(&p, 1, MillisLeft(deadline));
    if (ready > 0) return;  // errors/hangups surface in the following recv/send
    if (ready == 0) {
      Fail(ErrorCode::kTimeout, "{} {}: no progress for {} ms", operation, peer_, timeout.count());
    }
    if (errno != EINTR)
      Fail(ErrorCode::kNetwork, "{} {}: poll: {}", operation, peer_, ErrnoText(errno));
  }
}

[[noreturn]] void TcpConnection::FailTls(const char* operation, int ssl_error) {
  std::string detail = OpenSslErrors();
  if (ssl_error == SSL_ERROR_SYSCALL && detail.empty()) {
    detail = errno != 0 ? ErrnoText(errno) : "connection closed by peer";
  } else if (ssl_error == SSL_ERROR_ZERO_RETURN) {
    detail = "connection closed by peer (TLS close_notify)";
  }
  // A certificate the peer's name or our CA does not accept stays unaccepted on a retry. Only a
  // handshake that checks certificates can fail for one: with `required` the result is computed
  // but ignored, and once the handshake is done a failure (a killed connection, say) has another
  // cause, so naming the certificate then would send the operator the wrong way.
  Transience transience = Transience::kTransient;
  if (ssl_ != nullptr && !SSL_is_init_finished(ssl_) &&
      SSL_get_verify_mode(ssl_) != SSL_VERIFY_NONE) {
    long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK) {
      detail +=
          fmt::format(" (certificate verification: {})", X509_verify_cert_error_string(verify));
      transience = Transience::kPermanent;
    }
  }
  throw Error(ErrorCode::kNetwork,
              fmt::format("{} {} over TLS failed: {}", operation, peer_,
                          detail.empty() ? fmt::format("SSL error {}", ssl_error) : detail),
              transience);
}

void TcpConnection::StartTls(const TlsOptions& tls) {
  if (fd_ < 0) Fail(ErrorCode::kNetwork, "TLS handshake with {}: connection is closed", peer_);
  if (ssl_ != nullptr) Fail(ErrorCode::kInternal, "TLS already active on {}", peer_);
  if (tls.mode == TlsMode::kDisabled) {
    Fail(ErrorCode::kInternal, "StartTls on {} with TLS mode disabled", peer_);
  }
  ERR_clear_error();
  if (ssl_ctx_ != nullptr) SSL_CTX_free(ssl_ctx_);  // left by an earlier failed attempt
  ssl_ctx_ = SSL_CTX_new(TLS_client_method());
  if (ssl_ctx_ == nullptr) Fail(ErrorCode::kInternal, "SSL_CTX_new: {}", OpenSslErrors());
  SSL_CTX_set_min_proto_version(ssl_ctx_, TLS1_2_VERSION);

  const bool verify = tls.mode == TlsMode::kVerifyCa || tls.mode == TlsMode::kVerifyIdentity;
  if (verify) {
    int ok = tls.ca_file.empty()
                 ? SSL_CTX_set_default_verify_paths(ssl_ctx_)
                 : SSL_CTX_load_verify_locations(ssl_ctx_, tls.ca_file.c_str(), nullptr);
    if (ok != 1) {
      Fail(ErrorCode::kConfig, "TLS to {}: cannot load CA file '{}': {}", peer_, tls.ca_file,
           OpenSslErrors());
    }
    SSL_CTX_set_verify(ssl_ctx_, SSL_VERIFY_PEER, nullptr);
  } else {
    SSL_CTX_set_verify(ssl_ctx_, SSL_VERIFY_NONE, nullptr);
  }
  if (!tls.cert_file.empty()) {
    const std::string& key = tls.key_file.empty() ? tls.cert_file : tls.key_file;
    if (SSL_CTX_use_certificate_chain_file(ssl_ctx_, tls.cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ssl_ctx_, key.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ssl_ctx_) != 1) {
      Fail(ErrorCode::kConfig, "TLS to {}: cannot use client certificate '{}' / key '{}': {}",
           peer_, tls.cert_file, key, OpenSslErrors());
    }
  }

  ssl_ = SSL_new(ssl_ctx_);
  if (ssl_ == nullptr) Fail(ErrorCode::kInternal, "SSL_new: {}", OpenSslErrors());
  BIO* bio = BIO_new(NoSignalSocketMethod());
  if (bio == nullptr) Fail(ErrorCode::kInternal, "BIO_new: {}", OpenSslErrors());
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(fd_)));
  SSL_set_bio(ssl_, bio, bio);

  const std::string& name = tls.server_name.empty() ? host_ : tls.server_name;
  const bool ip = IsIpLiteral(name);
  if (!ip) SSL_set_tlsext_host_name(ssl_, name.c_str());
  if (tls.mode == TlsMode::kVerifyIdentity) {
    int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), name.c_str())
                : SSL_set1_host(ssl_, name.c_str());
    if (ok != 1) Fail(ErrorCode::kConfig, "TLS to {}: cannot check host name '{}'", peer_, name);
  }

  // Bytes already buffered belong to the plaintext phase; a TLS peer sends nothing before our
  // ClientHello, so anything here is a protocol violation.
  if (read_pos_ != read_end_) {
    Fail(ErrorCode::kProtocol, "TLS handshake with {}: peer sent data before the handshake", peer_);
  }
  const auto deadline = Clock::now() + options_.connect_timeout;
  for (;;) {
    int rc = SSL_connect(ssl_);
    if (rc == 1) break;
    int e = SSL_get_error(ssl_, rc);
    if (e == SSL_ERROR_WANT_READ) {
      WaitFor(POLLIN, deadline, "TLS handshake with", options_.connect_timeout);
    } else if (e == SSL_ERROR_WANT_WRITE) {
      WaitFor(POLLOUT, deadline, "TLS handshake with", options_.connect_timeout);
    } else {
      FailTls("handshake with", e);
    }
  }
}

std::string TcpConnection::TlsDescription() const {
  if (ssl_ == nullptr) return "";
  return fmt::format("{} {}", SSL_get_version(ssl_), SSL_get_cipher_name(ssl_));
}

size_t TcpConnection::ReadRaw(void* buffer, size_t size, const char* operation) {
  if (fd_ < 0) Fail(ErrorCode::kNetwork, "{} {}: connection is closed", operation, peer_);
  const auto deadline = Clock::now() + options_.read_timeout;
  for (;;) {
    if (ssl_ != nullptr) {
      size_t got = 0;
      ERR_clear_error();
      int rc = SSL_read_ex(ssl_, buffer, size, &got);
      if (rc == 1) return got;
      int e = SSL_get_error(ssl_, rc);
      if (e == SSL_ERROR_WANT_READ) {
        WaitFor(POLLIN, deadline, operation, options_.read_timeout);
      } else if (e == SSL_ERROR_WANT_WRITE) {
        WaitFor(POLLOUT, deadline, operation, options_.read_timeout);
      } else {
        FailTls(operation, e);
      }
      continue;
    }
    ssize_t n = ::recv(fd_, buffer, size, 0);
    if (n > 0) return static_cast<size_t>(n);
    if (n == 0) Fail(ErrorCode::kNetwork, "{} {}: connection closed by peer", operation, peer_);
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      WaitFor(POLLIN, deadline, operation, options_.read_timeout);
    } else if (errno != EINTR) {
      Fail(ErrorCode::kNetwork, "{} {}: {}", operation, peer_, ErrnoText(errno));
    }
  }
}

size_t TcpConnection::ReadSome(void* buffer, size_t size) {
  if (size == 0) return 0;
  if (read_pos_ == read_end_) {
    // Large reads bypass the buffer; small ones refill it.
    if (size >= kReadBufferSize) return ReadRaw(buffer, size, "read from");
    read_pos_ = 0;
    read_end_ = ReadRaw(read_buffer_.get(), kReadBufferSize, "read from");
  }
  size_t n = std::min(size, read_end_ - read_pos_);
  std::memcpy(buffer, read_buffer_.get() + read_pos_, n);
  read_pos_ += n;
  return n;
}

bool TcpConnection::FillBuffer() {
  if (read_pos_ != 0) {
    std::memmove(read_buffer_.get(), read_buffer_.get() + read_pos_, read_end_ - read_pos_);
    read_end_ -= read_pos_;
    read_pos_ = 0;
  }
  if (read_end_ == kReadBufferSize) return false;
  read_end_ += ReadRaw(read_buffer_.get() + read_end_, kReadBufferSize - read_end_, "read from");
  return true;
}

bool TcpConnection::HasInput() const {
  if (read_end_ > read_pos_) return true;
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

size_t TcpConnection::BufferCapacity() {
  return kReadBufferSize;
}

void TcpConnection::ReadExact(void* buffer, size_t size) {
  auto* out = static_cast<uint8_t*>(buffer);
  while (size > 0) {
    size_t n = ReadSome(out, size);
    out += n;
    size -= n;
  }
}

void TcpConnection::WriteAll(const void* data, size_t size) {
  if (fd_ < 0) Fail(ErrorCode::kNetwork, "write to {}: connection is closed", peer_);
  const auto* in = static_cast<const uint8_t*>(data);
  auto deadline = Clock::now() + options_.write_timeout;
  while (size > 0) {
    size_t written = 0;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      int rc = SSL_write_ex(ssl_, in, size, &written);
      if (rc != 1) {
        int e = SSL_get_error(ssl_, rc);
        if (e == SSL_ERROR_WANT_WRITE) {
          WaitFor(POLLOUT, deadline, "write to", options_.write_timeout);
        } else if (e == SSL_ERROR_WANT_READ) {
          WaitFor(POLLIN, deadline, "write to", options_.write_timeout);
        } else {
          FailTls("write to", e);
        }
        continue;
      }
    } else {
      ssize_t n = ::send(fd_, in, size, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          WaitFor(POLLOUT, deadline, "write to", options_.write_timeout);
        } else if (errno != EINTR) {
          Fail(ErrorCode::kNetwork, "write to {}: {}", peer_, ErrnoText(errno));
        }
        continue;
      }
      written = static_cast<size_t>(n);
    }
    in += written;
    size -= written;
    deadline = Clock::now() + options_.write_timeout;  // the bound is on lack of progress
  }
}

}  // namespace rowbridge
