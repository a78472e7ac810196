#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/byte_reader.h"
#include "common/error.h"
#include "mysql/messages.h"
#include "mysql/packet_channel.h"
#include "mysql/payload_writer.h"
#include "mysql/protocol.h"

namespace rowbridge::mysql {
namespace {

// A loopback peer: `serve` gets the accepted socket on a thread.
class Peer {
 public:
  explicit Peer(std::function<void(int)> serve) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), len);
    listen(listen_fd_, 1);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, serve] {
      int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd >= 0) {
        serve(fd);
        close(fd);
      }
    });
  }
  ~Peer() {
    shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    close(listen_fd_);
  }
  std::unique_ptr<TcpConnection> Connect() {
    TcpOptions o;
    o.read_timeout = std::chrono::seconds(5);
    return TcpConnection::Connect("127.0.0.1", port_, o);
  }

 private:
  int listen_fd_;
  uint16_t port_;
  std::thread thread_;
};

void SendAll(int fd, const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

std::string RecvAll(int fd, size_t size) {
  std::string out(size, '\0');
  size_t off = 0;
  while (off < size) {
    ssize_t n = recv(fd, out.data() + off, size - off, 0);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  out.resize(off);
  return out;
}

std::string Frame(std::string_view payload, uint8_t seq) {
  std::string out;
  out.push_back(static_cast<char>(payload.size() & 0xff));
  out.push_back(static_cast<char>((payload.size() >> 8) & 0xff));
  out.push_back(static_cast<char>((payload.size() >> 16) & 0xff));
  out.push_back(static_cast<char>(seq));
  out.append(payload);
  return out;
}

TEST(MysqlPacketChannel, JoinsPayloadsOver16MiB) {
  std::string big(kMaxPacketPayload + 10, 'x');
  big[0] = 'A';
  big.back() = 'Z';
  std::string exact(kMaxPacketPayload, 'e');
  Peer peer([&](int fd) {
    SendAll(fd, Frame("hello", 0));
    SendAll(fd, Frame(std::string_view(big).substr(0, kMaxPacketPayload), 1) +
                    Frame(std::string_view(big).substr(kMaxPacketPayload), 2));
    SendAll(fd, Frame(exact, 3) + Frame("", 4));
  });
  auto tcp = peer.Connect();
  PacketChannel channel(*tcp);
  EXPECT_EQ(channel.ReadPacket(), "hello");
  EXPECT_EQ(channel.ReadPacket(), big);
  EXPECT_EQ(channel.ReadPacket(), exact);
  EXPECT_EQ(channel.sequence(), 5);
}

// Packets of every size class arrive in odd-sized pieces, so they straddle the connection's
// read buffer at every offset: small ones are handed out where they lie in it, ones larger than
// the buffer are joined; each payload must come out whole and in order.
TEST(MysqlPacketChannel, PacketsStraddlingTheReadBufferComeOutWhole) {
  std::vector<std::string> payloads;
  uint8_t fill = 0;
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{5}, size_t{8000}, size_t{65531}, size_t{65536}, size_t{200000},
        size_t{262140}, size_t{262144}, size_t{300000}, size_t{8191}, size_t{3}}) {
    for (int copies = 0; copies < 3; ++copies) {
      std::string p(size, '\0');
      for (char& c : p) c = static_cast<char>(fill++ * 7 + 1);
      payloads.push_back(std::move(p));
    }
  }
  std::string stream;
  for (size_t i = 0; i < payloads.size(); ++i)
    stream += Frame(payloads[i], static_cast<uint8_t>(i));
  Peer peer([&](int fd) {
    // Pieces of a size prime to the packet sizes, so every boundary lands somewhere new.
    for (size_t off = 0; off < stream.size(); off += 99991) {
      SendAll(fd, stream.substr(off, 99991));
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  auto tcp = peer.Connect();
  PacketChannel channel(*tcp);
  for (size_t i = 0; i < payloads.size(); ++i) {
    const std::string_view got = channel.ReadPacket();
    ASSERT_EQ(got.size(), payloads[i].size()) << "packet " << i;
    ASSERT_TRUE(got == payloads[i]) << "packet " << i << " differs";
  }
}

TEST(MysqlPacketChannel, SplitsPayloadsOver16MiB) {
  std::string exact(kMaxPacketPayload, 'e');
  std::string received;
  {
    Peer peer([&](int fd) { received = RecvAll(fd, 4 + 3 + 4 + kMaxPacketPayload + 4); });
    auto tcp = peer.Connect();
    PacketChannel channel(*tcp);
    channel.WritePacket("abc");
    channel.WritePacket(exact);
  }  // joins the peer
  ASSERT_EQ(received.size(), 4 + 3 + 4 + kMaxPacketPayload + 4);
  EXPECT_EQ(received.substr(0, 7), Frame("abc", 0));
  EXPECT_EQ(received.substr(7, 4), std::string("\xff\xff\xff\x01", 4));
  EXPECT_EQ(received.substr(11 + kMaxPacketPayload), std::string("\0\0\0\x02", 4));
}

TEST(MysqlPacketChannel, OutOfOrderSequenceIsAProtocolError) {
  Peer peer([&](int fd) { SendAll(fd, Frame("x", 3)); });
  auto tcp = peer.Connect();
  PacketChannel channel(*tcp);
  try {
    channel.ReadPacket();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    EXPECT_NE(std::string(e.what()).find("expected sequence id 0, got 3"), std::string::npos)
        << e.what();
  }
}

TEST(MysqlPacketChannel, OversizedPayloadIsRefused) {
  Peer peer([&](int fd) { SendAll(fd, Frame(std::string(100, 'x'), 0)); });
  auto tcp = peer.Connect();
  PacketChannel channel(*tcp, 50);
  EXPECT_THROW(channel.ReadPacket(), Error);
}

std::string Greeting(uint32_t caps, std::string_view plugin, std::string_view version) {
  PayloadWriter w;
  w.U8(10).NulTerminated(version).U32(77).Raw("12345678").U8(0);
  w.U16(static_cast<uint16_t>(caps & 0xffff)).U8(45).U16(2).U16(static_cast<uint16_t>(caps >> 16));
  w.U8(21).Zeros(10).Raw("abcdefghijkl").U8(0).NulTerminated(plugin);
  return w.bytes();
}

TEST(MysqlMessages, ParsesAGreeting) {
  uint32_t caps = kClientProtocol41 | kClientSecureConnection | kClientPluginAuth | kClientSsl |
                  kClientDeprecateEof;
  ServerGreeting g =
      ParseGreeting(Greeting(caps, "mysql_native_password", "5.5.5-10.11.6-MariaDB"), "h:1");
  EXPECT_EQ(g.connection_id, 77u);
  EXPECT_EQ(g.nonce, "12345678abcdefghijkl");
  EXPECT_EQ(g.capabilities, caps);
  EXPECT_EQ(g.auth_plugin, "mysql_native_password");
  EXPECT_TRUE(g.IsMariaDb());
  ServerGreeting mysql =
      ParseGreeting(Greeting(caps | kClientMysql, "caching_sha2_password", "8.0.36"), "h:1");
  EXPECT_FALSE(mysql.IsMariaDb());
  std::string truncated = Greeting(caps, "x", "8.0").substr(0, 25);
  try {
    ParseGreeting(truncated, "db.example:3306");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    EXPECT_NE(std::string(e.what()).find("db.example:3306"), std::string::npos) << e.what();
  }
}

TEST(MysqlMessages, ErrPacketBecomesServerError) {
  std::string err = std::string("\xff\x15\x04", 3) + "#28000Access denied for user";
  try {
    ThrowServerError(err, "db:3306", "authenticating as 'bob'");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kServer);
    EXPECT_EQ(e.server_code(), 1045);
    EXPECT_EQ(e.sql_state(), "28000");
    EXPECT_STREQ(e.what(),
                 "MySQL server db:3306: error 1045 (28000): Access denied for user (while "
                 "authenticating as 'bob')");
  }
  // Pre-4.1 style ERR without SQLSTATE (e.g. "Too many connections" before the handshake).
  try {
    ParseGreeting(std::string("\xff\x10\x04", 3) + "Too many connections", "db:3306");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.server_code(), 1040);
    EXPECT_EQ(e.sql_state(), "");
  }
}

TEST(MysqlMessages, ColumnDefinitionAndRows) {
  PayloadWriter w;
  w.LengthEncodedString("def").LengthEncodedString("db").LengthEncodedString("t");
  w.LengthEncodedString("t0").LengthEncodedString("c").LengthEncodedString("c0");
  w.U8(0x0c).U16(63).U32(11).U8(3).U16(0x21).U8(0).U16(0);
  ColumnDefinition c = ParseColumnDefinition(w.bytes(), "p");
  EXPECT_EQ(c.schema, "db");
  EXPECT_EQ(c.org_table, "t0");
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(c.type, 3);
  EXPECT_EQ(c.flags, 0x21);

  PayloadWriter row;
  row.LengthEncodedString("12").U8(0xfb).LengthEncodedString(std::string(300, 'z'));
  std::vector<std::string_view> fields(3);
  std::vector<uint8_t> nulls(3);
  ParseTextRow(row.bytes(), fields, nulls, "p");
  EXPECT_EQ(fields[0], "12");
  EXPECT_EQ(nulls[1], 1);
  EXPECT_EQ(fields[2].size(), 300u);
  EXPECT_EQ(nulls[2], 0);
  std::vector<std::string_view> two(2);
  std::vector<uint8_t> two_nulls(2);
  EXPECT_THROW(ParseTextRow(row.bytes(), two, two_nulls, "p"), Error);  // bytes left over
  std::vector<std::string_view> four(4);
  std::vector<uint8_t> four_nulls(4);
  EXPECT_THROW(ParseTextRow(row.bytes(), four, four_nulls, "p"), Error);  // missing field
}

TEST(MysqlMessages, HandshakeResponseLayout) {
  HandshakeResponse r;
  r.capabilities = kClientProtocol41 | kClientSecureConnection | kClientPluginAuth |
                   kClientPluginAuthLenencData | kClientConnectWithDb | kClientConnectAttrs;
  r.charset = kCharsetUtf8mb4;
  r.user = "bob";
  r.auth_response = "proof";
  r.database = "db";
  r.auth_plugin = "mysql_native_password";
  r.attributes = {{"k", "v"}};
  std::string p = BuildHandshakeResponse(r);
  ByteReader reader(p);
  EXPECT_EQ(reader.U32(), r.capabilities);
  reader.U32();
  EXPECT_EQ(reader.U8(), kCharsetUtf8mb4);
  reader.Skip(23);
  EXPECT_EQ(reader.NulTerminated(), "bob");
  EXPECT_EQ(reader.LengthEncodedString(), "proof");
  EXPECT_EQ(reader.NulTerminated(), "db");
  EXPECT_EQ(reader.NulTerminated(), "mysql_native_password");
  EXPECT_EQ(reader.LengthEncodedString(), std::string("\x01k\x01v", 4));
  EXPECT_TRUE(reader.AtEnd());
  std::string ssl = BuildSslRequest(kClientProtocol41, 45);
  EXPECT_EQ(ssl.size(), 32u);
  EXPECT_EQ(ByteReader(ssl).U32() & kClientSsl, kClientSsl);
}

TEST(MysqlMessages, AuthSwitchAndEndOfRows) {
  AuthSwitchRequest s = ParseAuthSwitch(std::string("\xfe"
                                                    "client_ed25519\0"
                                                    "0123456789012345678901234567890X\0",
                                                    49),
                                        "p");
  EXPECT_EQ(s.plugin, "client_ed25519");
  EXPECT_EQ(s.data, "0123456789012345678901234567890X");
  EXPECT_TRUE(IsEndOfRows(std::string("\xfe\x00\x00\x02\x00\x00\x00", 7)));
  EXPECT_FALSE(IsEndOfRows(std::string(kMaxPacketPayload, '\xfe')));
}

}  // namespace
}  // namespace rowbridge::mysql
