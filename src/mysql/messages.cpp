#include "mysql/messages.h"

#include "common/byte_reader.h"
#include "common/error.h"
#include "common/server_errors.h"
#include "mysql/payload_writer.h"
#include "mysql/protocol.h"

namespace rowbridge::mysql {
namespace {

// Runs `parse` and re-throws a bounds error with the peer named, so the hot path builds no
// context string.
template <typename F>
auto WithPeer(std::string_view what, std::string_view peer, F&& parse) {
  try {
    return parse();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorruption) throw;
    Fail(ErrorCode::kProtocol, "malformed {} from MySQL server {}: {}", what, peer, e.what());
  }
}

std::string_view ToEnd(ByteReader& r) {
  // Some old servers omit the final NUL of the greeting's plugin name.
  const void* nul = std::memchr(r.current(), 0, r.remaining());
  if (nul == nullptr) return r.Rest();
  return r.NulTerminated();
}

}  // namespace

bool ServerGreeting::IsMariaDb() const {
  return server_version.find("MariaDB") != std::string::npos || (capabilities & kClientMysql) == 0;
}

ServerGreeting ParseGreeting(std::string_view payload, std::string_view peer) {
  if (IsErr(payload)) ThrowServerError(payload, peer, "connecting");
  return WithPeer("greeting", peer, [&] {
    ByteReader r(payload, 0, "greeting");
    ServerGreeting g;
    g.protocol_version = r.U8("protocol version");
    if (g.protocol_version != 10) {
      Fail(ErrorCode::kUnsupported,
           "MySQL server {} speaks handshake protocol {}; only version 10 is supported", peer,
           g.protocol_version);
    }
    g.server_version = r.NulTerminated("server version");
    g.connection_id = r.U32("connection id");
    g.nonce = r.Bytes(8, "auth plugin data part 1");
    r.Skip(1, "filler");
    g.capabilities = r.U16("capability flags");
    if (r.AtEnd()) return g;
    g.charset = r.U8("character set");
    g.status = r.U16("status flags");
    g.capabilities |= uint32_t{r.U16("capability flags (upper)")} << 16;
    uint8_t auth_data_length = r.U8("auth plugin data length");
    r.Skip(10, "reserved");
    if (g.capabilities & kClientSecureConnection) {
      size_t part2 = auth_data_length > 8 ? std::max<size_t>(13, auth_data_length - 8) : 13;
      std::string_view rest = r.Bytes(std::min(part2, r.remaining()), "auth plugin data part 2");
      // The last byte of part 2 is a NUL terminator, not nonce.
      if (!rest.empty() && rest.back() == '\0') rest.remove_suffix(1);
      g.nonce.append(rest);
    }
    if ((g.capabilities & kClientPluginAuth) && !r.AtEnd()) g.auth_plugin = ToEnd(r);
    return g;
  });
}

std::string BuildHandshakeResponse(const HandshakeResponse& response) {
  PayloadWriter w;
  w.U32(response.capabilities).U32(kMaxPacketPayload + 1).U8(response.charset).Zeros(23);
  w.NulTerminated(response.user);
  if (response.capabilities & kClientPluginAuthLenencData) {
    w.LengthEncodedString(response.auth_response);
  } else {
    if (response.auth_response.size() > 255) {
      Fail(ErrorCode::kInternal, "auth response of {} bytes does not fit the server's format",
           response.auth_response.size());
    }
    w.U8(static_cast<uint8_t>(response.auth_response.size())).Raw(response.auth_response);
  }
  if (response.capabilities & kClientConnectWithDb) w.NulTerminated(response.database);
  if (response.capabilities & kClientPluginAuth) w.NulTerminated(response.auth_plugin);
  if (response.capabilities & kClientConnectAttrs) {
    PayloadWriter attrs;
    for (const auto& [key, value] : response.attributes) {
      attrs.LengthEncodedString(key).LengthEncodedString(value);
    }
    w.LengthEncodedString(attrs.bytes());
  }
  return w.bytes();
}

std::string BuildSslRequest(uint32_t capabilities, uint8_t charset) {
  PayloadWriter w;
  w.U32(capabilities | kClientSsl).U32(kMaxPacketPayload + 1).U8(charset).Zeros(23);
  return w.bytes();
}

AuthSwitchRequest ParseAuthSwitch(std::string_view payload, std::string_view peer) {
  return WithPeer("auth switch request", peer, [&] {
    ByteReader r(payload, 0, "auth switch request");
    r.U8("marker");
    AuthSwitchRequest s;
    s.plugin = ToEnd(r);
    std::string_view data = r.Rest();
    if (!data.empty() && data.back() == '\0') data.remove_suffix(1);
    s.data = data;
    return s;
  });
}

OkPacket ParseOk(std::string_view payload, std::string_view peer) {
  return WithPeer("OK packet", peer, [&] {
    ByteReader r(payload, 0, "OK packet");
    r.U8("marker");
    OkPacket ok;
    ok.affected_rows = r.LengthEncoded("affected rows");
    ok.last_insert_id = r.LengthEncoded("last insert id");
    if (r.remaining() >= 4) {
      ok.status = r.U16("status");
      ok.warnings = r.U16("warnings");
    }
    ok.info = r.Rest();
    return ok;
  });
}

void ThrowServerError(std::string_view payload, std::string_view peer, std::string_view context) {
  int code = 0;
  std::string state;
  std::string_view message;
  WithPeer("ERR packet", peer, [&] {
    ByteReader r(payload, 0, "ERR packet");
    r.U8("marker");
    code = r.U16("error code");
    if (r.remaining() >= 6 && *r.current() == '#') {
      r.Skip(1);
      state = r.Bytes(5, "SQLSTATE");
    }
    message = r.Rest();
    return 0;
  });
  std::string text = fmt::format("MySQL server {}: error {}{}: {}", peer, code,
                                 state.empty() ? "" : fmt::format(" ({})", state), message);
  if (!context.empty()) text += fmt::format(" (while {})", context);
  throw Error(ErrorCode::kServer, text, code, state,
              IsTransientServerError(ServerKind::kMysql, code) ? Transience::kTransient
                                                               : Transience::kPermanent);
}

ColumnDefinition ParseColumnDefinition(std::string_view payload, std::string_view peer) {
  return WithPeer("column definition", peer, [&] {
    ByteReader r(payload, 0, "column definition");
    ColumnDefinition c;
    r.LengthEncodedString("catalog");
    c.schema = r.LengthEncodedString("schema");
    c.table = r.LengthEncodedString("table");
    c.org_table = r.LengthEncodedString("original table");
    c.name = r.LengthEncodedString("name");
    c.org_name = r.LengthEncodedString("original name");
    uint64_t fixed = r.LengthEncoded("fixed fields length");
    if (fixed < 0x0c) r.Corrupt(fmt::format("fixed fields length {} < 12", fixed));
    c.charset = r.U16("character set");
    c.length = r.U32("column length");
    c.type = r.U8("type");
    c.flags = r.U16("flags");
    c.decimals = r.U8("decimals");
    return c;
  });
}

void ParseTextRow(std::string_view payload, std::vector<std::string_view>& fields,
                  std::vector<uint8_t>& nulls, std::string_view peer) {
  WithPeer("text row", peer, [&] {
    ByteReader r(payload, 0, "text row");
    for (size_t i = 0; i < fields.size(); ++i) {
      if (!r.AtEnd() && *r.current() == kNullMarker) {
        r.Skip(1);
        fields[i] = {};
        nulls[i] = 1;
      } else {
        fields[i] = r.LengthEncodedString("field");
        nulls[i] = 0;
      }
    }
    if (!r.AtEnd()) r.Corrupt(fmt::format("{} bytes after the last field", r.remaining()));
    return 0;
  });
}

}  // namespace rowbridge::mysql
