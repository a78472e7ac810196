#include "mysql/packet_channel.h"

#include <algorithm>

#include "common/error.h"
#include "mysql/protocol.h"

namespace rowbridge::mysql {

std::string_view PacketChannel::ReadPacket() {
  // The last payload is no longer in use: if buffer_ is now far larger than the recent packets
  // need, it goes.
  if (!buffer_.empty() && buffer_policy_.ReleaseAfter(last_joined_, buffer_.size()))
    std::string().swap(buffer_);
  last_joined_ = 0;
  // A packet that fits the connection's read buffer is returned where it lies there: a
  // replication stream is hundreds of MB of row events, and this spares a copy of each.
  for (;;) {
    const std::string_view buffered = connection_.Buffered();
    if (buffered.size() >= 4) {
      const auto* h = reinterpret_cast<const uint8_t*>(buffered.data());
      const size_t part = h[0] | (size_t{h[1]} << 8) | (size_t{h[2]} << 16);
      if (part >= kMaxPacketPayload || 4 + part > TcpConnection::BufferCapacity()) break;
      if (buffered.size() >= 4 + part) {
        if (h[3] != sequence_) {
          Fail(ErrorCode::kProtocol,
               "MySQL packet from {} out of order: expected sequence id {}, got {}", peer(),
               sequence_, h[3]);
        }
        if (part > max_payload_) {
          Fail(ErrorCode::kProtocol, "MySQL packet from {} is larger than the {} byte limit",
               peer(), max_payload_);
        }
        ++sequence_;
        connection_.Consume(4 + part);
        return buffered.substr(4, part);
      }
    }
    if (!connection_.FillBuffer()) break;
  }
  size_t length = 0;
  for (;;) {
    uint8_t header[4];
    connection_.ReadExact(header, sizeof header);
    size_t part = header[0] | (size_t{header[1]} << 8) | (size_t{header[2]} << 16);
    if (header[3] != sequence_) {
      Fail(ErrorCode::kProtocol,
           "MySQL packet from {} out of order: expected sequence id {}, got {}", peer(), sequence_,
           header[3]);
    }
    ++sequence_;
    if (part > max_payload_ - length) {
      Fail(ErrorCode::kProtocol, "MySQL packet from {} is larger than the {} byte limit", peer(),
           max_payload_);
    }
    if (buffer_.size() < length + part) buffer_.resize(std::max(length + part, buffer_.size() * 2));
    connection_.ReadExact(buffer_.data() + length, part);
    length += part;
    if (part < kMaxPacketPayload) break;
  }
  last_joined_ = length;
  return std::string_view(buffer_.data(), length);
}

void PacketChannel::WritePacket(std::string_view payload) {
  // One write per packet keeps small commands to one system call.
  size_t offset = 0;
  for (;;) {
    size_t part = std::min(payload.size() - offset, kMaxPacketPayload);
    write_buffer_.resize(4 + part);
    write_buffer_[0] = static_cast<char>(part & 0xff);
    write_buffer_[1] = static_cast<char>((part >> 8) & 0xff);
    write_buffer_[2] = static_cast<char>((part >> 16) & 0xff);
    write_buffer_[3] = static_cast<char>(sequence_++);
    std::copy_n(payload.data() + offset, part, write_buffer_.data() + 4);
    connection_.WriteAll(write_buffer_);
    offset += part;
    // A final part of exactly kMaxPacketPayload bytes needs an empty packet to end the payload.
    if (part < kMaxPacketPayload) break;
  }
  ReleaseIfLarger(write_buffer_, size_t{1} << 20);
}

}  // namespace rowbridge::mysql
