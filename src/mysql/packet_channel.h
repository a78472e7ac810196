// PacketChannel: MySQL packet framing over a TcpConnection. A packet is a 3-byte little-endian
// payload length, a 1-byte sequence id and the payload. Payloads of 16 MiB - 1 bytes or more are
// split into several packets (each full one followed by the next, ending with a shorter, possibly
// empty one); the channel splits on write and joins on read, so callers see whole payloads.
//
// Sequence ids: a command starts at 0 (ResetSequence) and every packet in either direction takes
// the next id; a packet arriving with another id is Error(kProtocol).
//
// The payload returned by ReadPacket is valid until the next read on the connection. A packet
// that fits the connection's read buffer is returned where it lies there (no copy); larger ones
// are joined in a buffer the channel reuses. No allocation per packet once that buffer has grown
// to the size of the recent large packets; one outsized packet (a 100 MB row) makes it grow, and
// it is freed again once the packets after it no longer need it (common/retain_policy.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/retain_policy.h"
#include "common/tcp_connection.h"

namespace rowbridge::mysql {

class PacketChannel {
 public:
  // `max_payload` bounds one joined payload; larger ones are Error(kProtocol) rather than an
  // allocation the peer chose.
  explicit PacketChannel(TcpConnection& connection, size_t max_payload = size_t{1} << 30)
      : connection_(connection), max_payload_(max_payload) {}

  std::string_view ReadPacket();
  void WritePacket(std::string_view payload);
  void ResetSequence() { sequence_ = 0; }
  uint8_t sequence() const { return sequence_; }

  TcpConnection& connection() { return connection_; }
  const std::string& peer() const { return connection_.peer(); }

 private:
  TcpConnection& connection_;
  size_t max_payload_;
  uint8_t sequence_ = 0;
  std::string buffer_;  // only the first `length` bytes are the payload
  // Each packet is a use of buffer_: a joined one of its length, one returned in place of 0 bytes.
  RetainPolicy buffer_policy_{size_t{1} << 20, std::chrono::seconds(5)};
  size_t last_joined_ = 0;  // length of the last packet if it was joined in buffer_, else 0
  std::string write_buffer_;
};

}  // namespace rowbridge::mysql
