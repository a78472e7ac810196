#include "binlog/query_event.h"

#include "binlog/mariadb_compression.h"
#include "common/error.h"

namespace rowbridge::binlog {

namespace {

enum StatusVar : uint8_t {
  kFlags2 = 0,
  kSqlMode = 1,
  kCatalog = 2,
  kAutoIncrement = 3,
  kCharset = 4,
  kTimeZone = 5,
  kCatalogNz = 6,
  kLcTimeNames = 7,
  kCharsetDatabase = 8,
  kTableMapForUpdate = 9,
  kMasterDataWritten = 10,
  kInvoker = 11,
  kUpdatedDbNames = 12,
  kMicroseconds = 13,
  kCommitTs = 14,
  kCommitTs2 = 15,
  kExplicitDefaultsForTimestamp = 16,
  kDdlLoggedWithXid = 17,
  kDefaultCollationForUtf8mb4 = 18,
  kSqlRequirePrimaryKey = 19,
  kDefaultTableEncryption = 20,
  kMariaHrnow = 128,
  kMariaXid = 129,
  kMariaGtidFlags3 = 130,
};

void ParseStatusVars(ByteReader& r, QueryEvent& q) {
  while (!r.AtEnd()) {
    uint8_t code = r.U8("status variable");
    switch (code) {
      case kFlags2:
        q.flags2 = r.U32("flags2");
        break;
      case kSqlMode:
        q.sql_mode = r.U64("sql_mode");
        break;
      case kCatalog: {
        uint8_t n = r.U8("catalog length");
        r.Skip(n + 1u, "catalog");
        break;
      }
      case kAutoIncrement:
        r.Skip(4, "auto_increment");
        break;
      case kCharset:
        q.charset_client = r.U16("charset");
        q.collation_connection = r.U16("collation_connection");
        q.collation_server = r.U16("collation_server");
        break;
      case kTimeZone:
      case kCatalogNz: {
        uint8_t n = r.U8("status string length");
        r.Skip(n, "status string");
        break;
      }
      case kLcTimeNames:
      case kCharsetDatabase:
      case kDefaultCollationForUtf8mb4:
        r.Skip(2, "status variable");
        break;
      case kTableMapForUpdate:
        r.Skip(8, "table_map_for_update");
        break;
      case kMasterDataWritten:
        r.Skip(4, "master_data_written");
        break;
      case kInvoker: {
        uint8_t user = r.U8("invoker user length");
        r.Skip(user, "invoker user");
        uint8_t host = r.U8("invoker host length");
        r.Skip(host, "invoker host");
        break;
      }
      case kUpdatedDbNames: {
        uint8_t n = r.U8("updated db count");
        if (n != 254) {  // 254 = more databases than MySQL lists
          for (uint8_t i = 0; i < n; ++i) r.NulTerminated("updated db name");
        }
        break;
      }
      case kMicroseconds:
      case kMariaHrnow:
        r.Skip(3, "microseconds");
        break;
      case kCommitTs2:
        r.Skip(8, "commit timestamp");
        break;
      case kExplicitDefaultsForTimestamp:
      case kSqlRequirePrimaryKey:
      case kDefaultTableEncryption:
      case kMariaGtidFlags3:
        r.Skip(1, "status variable");
        break;
      case kDdlLoggedWithXid:
        r.Skip(8, "ddl xid");
        break;
      case kMariaXid:
        q.xid = r.U64("xid");
        break;
      default:
        return;  // unknown length: the remaining variables are not needed
    }
  }
}

}  // namespace

QueryEvent ParseQueryEvent(const Event& event, const FormatDescription& format,
                           std::string& scratch) {
  ByteReader r = event.BodyReader();
  QueryEvent q;
  uint8_t post_header = format.PostHeaderLength(event.type());
  if (post_header == 0) post_header = event.type() == EventType::kExecuteLoadQuery ? 26 : 13;
  q.thread_id = r.U32("thread id");
  q.exec_time = r.U32("exec time");
  uint8_t db_len = r.U8("database length");
  q.error_code = r.U16("error code");
  uint16_t status_len = 0;
  size_t used = 11;
  if (post_header >= 13) {
    status_len = r.U16("status variables length");
    used = 13;
  }
  if (event.type() == EventType::kExecuteLoadQuery) {
    q.load_file_id = r.U32("load file id");
    r.Skip(4 + 4 + 1, "load positions");
    used += 13;
  }
  if (post_header > used) r.Skip(post_header - used, "query post-header");
  uint64_t status_offset = r.offset();
  ByteReader status(r.Bytes(status_len, "status variables"), status_offset, event.context);
  ParseStatusVars(status, q);
  q.database = r.Bytes(db_len, "database name");
  r.Skip(1, "database name NUL");
  if (event.type() == EventType::kMariaQueryCompressed) {
    uint64_t at = r.offset();
    q.sql = MariaUncompress(r.Rest(), scratch, event.context, at);
  } else {
    q.sql = r.Rest();
  }
  return q;
}

}  // namespace rowbridge::binlog
