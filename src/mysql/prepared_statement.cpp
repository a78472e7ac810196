#include "mysql/prepared_statement.h"

#include "common/byte_reader.h"
#include "common/error.h"
#include "mysql/binary_row.h"
#include "mysql/payload_writer.h"
#include "mysql/protocol.h"

namespace rowbridge::mysql {
namespace {

// Reads `count` column definitions and, unless CLIENT_DEPRECATE_EOF, the EOF after them.
std::vector<ColumnDefinition> ReadDefinitions(PacketChannel& channel, uint64_t count,
                                              bool deprecate_eof, std::string_view what) {
  std::vector<ColumnDefinition> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    out.push_back(ParseColumnDefinition(channel.ReadPacket(), channel.peer()));
  }
  if (count > 0 && !deprecate_eof) {
    std::string_view eof = channel.ReadPacket();
    if (!IsEndOfRows(eof)) {
      Fail(ErrorCode::kProtocol, "MySQL server {} did not end the {} definitions with EOF",
           channel.peer(), what);
    }
  }
  return out;
}

}  // namespace

// --- BinaryResultSet -------------------------------------------------------------------------

BinaryResultSet::BinaryResultSet(BinaryResultSet&& other) noexcept
    : connection_(other.connection_),
      done_(other.done_),
      columns_(std::move(other.columns_)),
      fields_(std::move(other.fields_)),
      nulls_(std::move(other.nulls_)),
      row_(other.row_),
      rows_read_(other.rows_read_),
      execute_result_(other.execute_result_) {
  other.connection_ = nullptr;
  other.done_ = true;
}

BinaryResultSet::~BinaryResultSet() {
  if (connection_ == nullptr || done_) return;
  try {
    while (Next()) {
    }
  } catch (const Error&) {
    connection_->broken_ = true;
    connection_->result_open_ = false;
  }
}

bool BinaryResultSet::Next() {
  if (done_) return false;
  Connection& c = *connection_;
  try {
    std::string_view packet = c.channel_.ReadPacket();
    if (IsErr(packet)) {
      done_ = true;
      c.result_open_ = false;
      ThrowServerError(packet, c.peer(), "reading rows");
    }
    // Rows start with 0x00, so 0xfe can only be the end (EOF, or OK with CLIENT_DEPRECATE_EOF).
    if (PacketMarker(packet) == kEofMarker) {
      done_ = true;
      c.result_open_ = false;
      uint16_t status = 0;
      if (c.capabilities_ & kClientDeprecateEof) {
        status = ParseOk(packet, c.peer()).status;
      } else if (packet.size() >= 5) {
        status = static_cast<uint16_t>(static_cast<uint8_t>(packet[3]) |
                                       (static_cast<uint8_t>(packet[4]) << 8));
      }
      if (status & kServerMoreResultsExist) {
        c.broken_ = true;
        Fail(ErrorCode::kUnsupported, "MySQL server {} returned more than one result set",
             c.peer());
      }
      return false;
    }
    ParseBinaryRow(packet, columns_, fields_, nulls_, c.peer());
    row_ = packet;
    ++rows_read_;
    return true;
  } catch (const Error& e) {
    done_ = true;
    c.result_open_ = false;
    if (e.code() != ErrorCode::kServer) c.broken_ = true;
    throw;
  }
}

// --- PreparedStatement -----------------------------------------------------------------------

PreparedStatement PreparedStatement::Prepare(Connection& connection, std::string_view sql) {
  connection.CheckIdle();
  Connection& c = connection;
  c.command_buffer_.clear();
  c.command_buffer_.push_back(static_cast<char>(kComStmtPrepare));
  c.command_buffer_.append(sql);
  c.channel_.ResetSequence();
  c.channel_.WritePacket(c.command_buffer_);
  if (c.command_buffer_.capacity() > 65536) c.command_buffer_ = std::string();
  try {
    std::string_view packet = c.channel_.ReadPacket();
    if (IsErr(packet)) ThrowServerError(packet, c.peer(), "preparing a statement");
    if (PacketMarker(packet) != kOkMarker || packet.size() < 12) {
      Fail(ErrorCode::kProtocol,
           "MySQL server {} answered COM_STMT_PREPARE with a bad packet (0x{:02x}, {} bytes)",
           c.peer(), PacketMarker(packet), packet.size());
    }
    ByteReader r(packet, 0, "COM_STMT_PREPARE answer");
    r.Skip(1);
    const uint32_t id = r.U32();
    const uint16_t columns = r.U16();
    const uint16_t params = r.U16();
    const bool deprecate_eof = (c.capabilities_ & kClientDeprecateEof) != 0;
    ReadDefinitions(c.channel_, params, deprecate_eof, "parameter");
    std::vector<ColumnDefinition> definitions =
        ReadDefinitions(c.channel_, columns, deprecate_eof, "column");
    // Made only once the answer is read whole: from here on its destructor closes it.
    PreparedStatement statement(&c, id);
    statement.param_count_ = params;
    statement.columns_ = std::move(definitions);
    return statement;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kServer) c.broken_ = true;
    throw;
  }
}

PreparedStatement::PreparedStatement(PreparedStatement&& other) noexcept
    : connection_(other.connection_),
      id_(other.id_),
      open_(other.open_),
      param_count_(other.param_count_),
      columns_(std::move(other.columns_)) {
  other.open_ = false;
}

PreparedStatement::~PreparedStatement() {
  // A broken connection or one still reading rows cannot take a command; the server drops the
  // statement with the session.
  if (!open_ || connection_->broken_ || connection_->result_open_) return;
  try {
    Close();
  } catch (const Error&) {
    // The connection is gone; so is the statement.
  }
}

void PreparedStatement::Close() {
  if (!open_) return;
  open_ = false;
  PayloadWriter w;
  w.U8(kComStmtClose).U32(id_);
  connection_->SendCommand(w.bytes());
}

BinaryResultSet PreparedStatement::Execute() {
  if (!open_) Fail(ErrorCode::kInternal, "executing a closed prepared statement");
  if (param_count_ != 0) {
    Fail(ErrorCode::kUnsupported, "prepared statements with parameters ({}) are not supported",
         param_count_);
  }
  Connection& c = *connection_;
  // flags 0 = CURSOR_TYPE_NO_CURSOR; iteration count 1; no parameter block.
  char command[10] = {static_cast<char>(kComStmtExecute),
                      static_cast<char>(id_ & 0xff),
                      static_cast<char>((id_ >> 8) & 0xff),
                      static_cast<char>((id_ >> 16) & 0xff),
                      static_cast<char>((id_ >> 24) & 0xff),
                      0,
                      1,
                      0,
                      0,
                      0};
  c.SendCommand(std::string_view(command, sizeof command));

  BinaryResultSet rs(&c);
  try {
    std::string_view packet = c.channel_.ReadPacket();
    const uint8_t first = PacketMarker(packet);
    if (first == kErrMarker) ThrowServerError(packet, c.peer(), "executing a statement");
    if (first == kOkMarker) {
      OkPacket ok = ParseOk(packet, c.peer());
      rs.execute_result_ = {ok.affected_rows, ok.last_insert_id, ok.warnings};
      rs.done_ = true;
      if (ok.status & kServerMoreResultsExist) {
        c.broken_ = true;
        Fail(ErrorCode::kUnsupported, "MySQL server {} returned more than one result", c.peer());
      }
      return rs;
    }
    uint64_t count = 0;
    {
      ByteReader r(packet, 0, "column count");
      const bool well_formed =
          (first < 0xfb && packet.size() == 1) || (first == 0xfc && packet.size() == 3);
      if (!well_formed) {
        Fail(ErrorCode::kProtocol,
             "MySQL server {} answered COM_STMT_EXECUTE with a bad packet (0x{:02x}, {} bytes)",
             c.peer(), first, packet.size());
      }
      count = r.LengthEncoded("column count");
      if (count == 0 || count > 65535 || !r.AtEnd()) {
        Fail(ErrorCode::kProtocol, "MySQL server {} sent a bad column count packet", c.peer());
      }
    }
    rs.columns_ =
        ReadDefinitions(c.channel_, count, (c.capabilities_ & kClientDeprecateEof) != 0, "column");
    rs.fields_.resize(count);
    rs.nulls_.resize(count);
    c.result_open_ = true;
    return rs;
  } catch (const Error& e) {
    rs.done_ = true;
    if (e.code() != ErrorCode::kServer) c.broken_ = true;
    throw;
  }
}

}  // namespace rowbridge::mysql
