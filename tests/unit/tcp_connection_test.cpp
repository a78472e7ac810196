#include "common/tcp_connection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "common/error.h"

namespace rowbridge {
namespace {

using namespace std::chrono_literals;

// A listening socket on 127.0.0.1 (or ::1) whose single accepted connection is served by `serve`
// on a thread.
class LocalServer {
 public:
  explicit LocalServer(std::function<void(int fd)> serve, int family = AF_INET, int backlog = 8,
                       bool accept = true) {
    fd_ = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_storage ss{};
    socklen_t len;
    if (family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof(sockaddr_in);
    } else {
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_loopback;
      len = sizeof(sockaddr_in6);
    }
    ok_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&ss), len) == 0 && ::listen(fd_, backlog) == 0;
    if (!ok_) return;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&ss), &len);
    port_ = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                    : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
    if (accept) {
      thread_ = std::thread([this, serve] {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c >= 0) {
          serve(c);
          ::close(c);
        }
      });
    }
  }
  ~LocalServer() {
    ::shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  bool ok_ = false;
  uint16_t port_ = 0;
  std::thread thread_;
};

void Echo(int fd) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    if (::send(fd, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n) return;
  }
}

TcpOptions Fast() {
  TcpOptions o;
  o.connect_timeout = 2000ms;
  o.read_timeout = 2000ms;
  o.write_timeout = 2000ms;
  return o;
}

std::string What(const std::function<void()>& f, ErrorCode expected) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

TEST(TcpConnection, EchoesWithReadExactAndReadSome) {
  LocalServer server(Echo);
  ASSERT_TRUE(server.ok());
  auto c = TcpConnection::Connect("127.0.0.1", server.port(), Fast());
  EXPECT_EQ(c->peer(), fmt::format("127.0.0.1:{}", server.port()));
  std::string big(300'000, 'x');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  std::thread writer([&] { c->WriteAll(big); });
  std::string back(big.size(), '\0');
  c->ReadExact(back.data(), 10);
  size_t got = 10;
  got += c->ReadSome(back.data() + got, 5);
  c->ReadExact(back.data() + got, back.size() - got);
  writer.join();
  EXPECT_EQ(back, big);
  c->Close();
  EXPECT_FALSE(c->is_open());
  What([&] { c->WriteAll("x"); }, ErrorCode::kNetwork);
}

TEST(TcpConnection, ResolvesLocalhostAndIpv6) {
  {
    LocalServer server(Echo);
    auto c = TcpConnection::Connect("localhost", server.port(), Fast());
    c->WriteAll("hi");
    char buf[2];
    c->ReadExact(buf, 2);
    EXPECT_EQ(std::string(buf, 2), "hi");
  }
  LocalServer v6(Echo, AF_INET6);
  if (!v6.ok()) GTEST_SKIP() << "no IPv6 loopback on this machine";
  auto c = TcpConnection::Connect("::1", v6.port(), Fast());
  EXPECT_EQ(c->peer(), fmt::format("[::1]:{}", v6.port()));
  c->WriteAll("v6");
  char buf[2];
  c->ReadExact(buf, 2);
  EXPECT_EQ(std::string(buf, 2), "v6");
}

TEST(TcpConnection, RefusedConnectNamesThePeer) {
  uint16_t port;
  {
    LocalServer server([](int) {});
    port = server.port();
  }
  std::string msg =
      What([&] { TcpConnection::Connect("127.0.0.1", port, Fast()); }, ErrorCode::kNetwork);
  EXPECT_NE(msg.find(fmt::format("127.0.0.1:{}", port)), std::string::npos) << msg;
  EXPECT_NE(msg.find("refused"), std::string::npos) << msg;
}

TEST(TcpConnection, UnresolvableHostIsANetworkError) {
  std::string msg =
      What([] { TcpConnection::Connect("no-such-host.invalid", 1, Fast()); }, ErrorCode::kNetwork);
  EXPECT_NE(msg.find("no-such-host.invalid:1"), std::string::npos) << msg;
}

TEST(TcpConnection, SilentPeerTimesOutNamingTheOperation) {
  LocalServer server([](int fd) {
    char b;
    ::recv(fd, &b, 1, 0);  // waits until the client closes
  });
  TcpOptions o = Fast();
  o.read_timeout = 200ms;
  auto c = TcpConnection::Connect("127.0.0.1", server.port(), o);
  auto start = std::chrono::steady_clock::now();
  char buf[4];
  std::string msg = What([&] { c->ReadExact(buf, 4); }, ErrorCode::kTimeout);
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 190ms);
  EXPECT_LT(waited, 1500ms);
  EXPECT_NE(msg.find("read from 127.0.0.1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("200 ms"), std::string::npos) << msg;
}

TEST(TcpConnection, PeerCloseIsANetworkError) {
  LocalServer server([](int fd) { ::send(fd, "ab", 2, MSG_NOSIGNAL); });
  auto c = TcpConnection::Connect("127.0.0.1", server.port(), Fast());
  char buf[4];
  std::string msg = What([&] { c->ReadExact(buf, 4); }, ErrorCode::kNetwork);
  EXPECT_NE(msg.find("closed by peer"), std::string::npos) << msg;
}

// --- TLS -----------------------------------------------------------------------------------

struct TempPem {
  std::filesystem::path cert;
  std::filesystem::path key;
  X509* x509 = nullptr;
  EVP_PKEY* pkey = nullptr;
  ~TempPem() {
    X509_free(x509);
    EVP_PKEY_free(pkey);
    std::filesystem::remove(cert);
    std::filesystem::remove(key);
  }
};

// A self-signed certificate for CN=localhost with SANs localhost and 127.0.0.1; it is its own CA.
void MakeSelfSigned(TempPem& pem, const std::string& tag) {
  pem.pkey = EVP_EC_gen("P-256");
  ASSERT_NE(pem.pkey, nullptr);
  pem.x509 = X509_new();
  X509_set_version(pem.x509, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(pem.x509), 1);
  X509_gmtime_adj(X509_getm_notBefore(pem.x509), -3600);
  X509_gmtime_adj(X509_getm_notAfter(pem.x509), 3600);
  X509_NAME* name = X509_get_subject_name(pem.x509);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(pem.x509, name);
  X509_set_pubkey(pem.x509, pem.pkey);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, pem.x509, pem.x509, nullptr, nullptr, 0);
  for (auto [nid, value] : {std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                            std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    ASSERT_NE(ext, nullptr);
    X509_add_ext(pem.x509, ext, -1);
    X509_EXTENSION_free(ext);
  }
  ASSERT_GT(X509_sign(pem.x509, pem.pkey, EVP_sha256()), 0);
  auto dir = std::filesystem::temp_directory_path();
  pem.cert = dir / fmt::format("rowbridge-tls-{}-{}.crt", getpid(), tag);
  pem.key = dir / fmt::format("rowbridge-tls-{}-{}.key", getpid(), tag);
  FILE* f = std::fopen(pem.cert.c_str(), "w");
  PEM_write_X509(f, pem.x509);
  std::fclose(f);
  f = std::fopen(pem.key.c_str(), "w");
  PEM_write_PrivateKey(f, pem.pkey, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
}

// Serves TLS echo on an accepted socket; a failed handshake just closes.
void TlsEcho(int fd, const TempPem* pem) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  SSL_CTX_use_certificate(ctx, pem->x509);
  SSL_CTX_use_PrivateKey(ctx, pem->pkey);
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) == 1) {
    char buf[1024];
    for (;;) {
      int n = SSL_read(ssl, buf, sizeof buf);
      if (n <= 0) break;
      if (SSL_write(ssl, buf, n) != n) break;
    }
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
}

class TcpConnectionTls : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeSelfSigned(server_pem_, "server");
    MakeSelfSigned(other_pem_, "other");
  }
  TempPem server_pem_;
  TempPem other_pem_;
};

void ExpectEcho(TcpConnection& c) {
  c.WriteAll("over tls");
  char buf[8];
  c.ReadExact(buf, 8);
  EXPECT_EQ(std::string(buf, 8), "over tls");
}

TEST_F(TcpConnectionTls, VerifyCaAndIdentitySucceedWithTheRightCa) {
  for (TlsMode mode : {TlsMode::kRequired, TlsMode::kVerifyCa, TlsMode::kVerifyIdentity}) {
    for (const char* host : {"127.0.0.1", "localhost"}) {
      LocalServer server([this](int fd) { TlsEcho(fd, &server_pem_); });
      auto c = TcpConnection::Connect(host, server.port(), Fast());
      TlsOptions tls;
      tls.mode = mode;
      tls.ca_file = server_pem_.cert;
      c->StartTls(tls);
      EXPECT_TRUE(c->tls_active());
      EXPECT_NE(c->TlsDescription().find("TLS"), std::string::npos) << c->TlsDescription();
      ExpectEcho(*c);
    }
  }
}

TEST_F(TcpConnectionTls, UntrustedCaFailsVerifyCa) {
  LocalServer server([this](int fd) { TlsEcho(fd, &server_pem_); });
  auto c = TcpConnection::Connect("127.0.0.1", server.port(), Fast());
  TlsOptions tls;
  tls.mode = TlsMode::kVerifyCa;
  tls.ca_file = other_pem_.cert;
  std::string msg = What([&] { c->StartTls(tls); }, ErrorCode::kNetwork);
  EXPECT_NE(msg.find("certificate"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fmt::format("127.0.0.1:{}", server.port())), std::string::npos) << msg;
}

TEST_F(TcpConnectionTls, WrongNameFailsVerifyIdentityButNotVerifyCa) {
  {
    LocalServer server([this](int fd) { TlsEcho(fd, &server_pem_); });
    auto c = TcpConnection::Connect("127.0.0.1", server.port(), Fast());
    TlsOptions tls;
    tls.mode = TlsMode::kVerifyIdentity;
    tls.ca_file = server_pem_.cert;
    tls.server_name = "db.example.com";
    std::string msg = What([&] { c->StartTls(tls); }, ErrorCode::kNetwork);
    EXPECT_NE(msg.find("mismatch"), std::string::npos) << msg;
  }
  LocalServer server([this](int fd) { TlsEcho(fd, &server_pem_); });
  auto c = TcpConnection::Connect("127.0.0.1", server.port(), Fast());
  TlsOptions tls;
  tls.mode = TlsMode::kVerifyCa;
  tls.ca_file = server_pem_.cert;
  tls.server_name = "db.example.com";
  c->StartTls(tls);
  ExpectEcho(*c);
}

TEST_F(TcpConnectionTls, MissingCaFileIsAConfigError) {
  LocalServer server([this](int fd) { TlsEcho(fd, &server_pem_); });
  auto c = TcpConnection::Connect("127.0.0.1", server.port(), Fast());
  TlsOptions tls;
  tls.mode = TlsMode::kVerifyCa;
  tls.ca_file = "/nonexistent/ca.pem";
  std::string msg = What([&] { c->StartTls(tls); }, ErrorCode::kConfig);
  EXPECT_NE(msg.find("/nonexistent/ca.pem"), std::string::npos) << msg;
}

TEST(TcpConnectionTlsMode, ParsesNames) {
  EXPECT_EQ(ParseTlsMode("verify_identity"), TlsMode::kVerifyIdentity);
  EXPECT_EQ(ParseTlsMode("VERIFY-CA"), TlsMode::kVerifyCa);
  EXPECT_EQ(ParseTlsMode("disabled"), TlsMode::kDisabled);
  What([] { ParseTlsMode("sometimes"); }, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace rowbridge
