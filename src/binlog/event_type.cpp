#include "binlog/event_type.h"

namespace rowbridge::binlog {

std::string_view EventTypeName(EventType type) {
  switch (type) {
    case EventType::kUnknown:
      return "Unknown";
    case EventType::kStartV3:
      return "Start_v3";
    case EventType::kQuery:
      return "Query";
    case EventType::kStop:
      return "Stop";
    case EventType::kRotate:
      return "Rotate";
    case EventType::kIntvar:
      return "Intvar";
    case EventType::kLoad:
      return "Load";
    case EventType::kSlave:
      return "Slave";
    case EventType::kCreateFile:
      return "Create_file";
    case EventType::kAppendBlock:
      return "Append_block";
    case EventType::kExecLoad:
      return "Exec_load";
    case EventType::kDeleteFile:
      return "Delete_file";
    case EventType::kNewLoad:
      return "New_load";
    case EventType::kRand:
      return "RAND";
    case EventType::kUserVar:
      return "User_var";
    case EventType::kFormatDescription:
      return "Format_desc";
    case EventType::kXid:
      return "Xid";
    case EventType::kBeginLoadQuery:
      return "Begin_load_query";
    case EventType::kExecuteLoadQuery:
      return "Execute_load_query";
    case EventType::kTableMap:
      return "Table_map";
    case EventType::kPreGaWriteRows:
      return "Write_rows_v0";
    case EventType::kPreGaUpdateRows:
      return "Update_rows_v0";
    case EventType::kPreGaDeleteRows:
      return "Delete_rows_v0";
    case EventType::kWriteRowsV1:
      return "Write_rows_v1";
    case EventType::kUpdateRowsV1:
      return "Update_rows_v1";
    case EventType::kDeleteRowsV1:
      return "Delete_rows_v1";
    case EventType::kIncident:
      return "Incident";
    case EventType::kHeartbeat:
      return "Heartbeat";
    case EventType::kIgnorable:
      return "Ignorable";
    case EventType::kRowsQuery:
      return "Rows_query";
    case EventType::kWriteRows:
      return "Write_rows";
    case EventType::kUpdateRows:
      return "Update_rows";
    case EventType::kDeleteRows:
      return "Delete_rows";
    case EventType::kGtid:
      return "Gtid";
    case EventType::kAnonymousGtid:
      return "Anonymous_Gtid";
    case EventType::kPreviousGtids:
      return "Previous_gtids";
    case EventType::kTransactionContext:
      return "Transaction_context";
    case EventType::kViewChange:
      return "View_change";
    case EventType::kXaPrepare:
      return "XA_prepare";
    case EventType::kPartialUpdateRows:
      return "Update_rows_partial";
    case EventType::kTransactionPayload:
      return "Transaction_payload";
    case EventType::kHeartbeatV2:
      return "Heartbeat_v2";
    case EventType::kGtidTagged:
      return "Gtid_tagged";
    case EventType::kMariaAnnotateRows:
      return "Annotate_rows";
    case EventType::kMariaBinlogCheckpoint:
      return "Binlog_checkpoint";
    case EventType::kMariaGtid:
      return "MariaDB_Gtid";
    case EventType::kMariaGtidList:
      return "Gtid_list";
    case EventType::kMariaStartEncryption:
      return "Start_encryption";
    case EventType::kMariaQueryCompressed:
      return "Query_compressed";
    case EventType::kMariaWriteRowsCompressedV1:
      return "Write_rows_compressed_v1";
    case EventType::kMariaUpdateRowsCompressedV1:
      return "Update_rows_compressed_v1";
    case EventType::kMariaDeleteRowsCompressedV1:
      return "Delete_rows_compressed_v1";
    case EventType::kMariaWriteRowsCompressed:
      return "Write_rows_compressed";
    case EventType::kMariaUpdateRowsCompressed:
      return "Update_rows_compressed";
    case EventType::kMariaDeleteRowsCompressed:
      return "Delete_rows_compressed";
  }
  return "Unknown";
}

bool IsRowsEvent(EventType type) {
  auto code = static_cast<uint8_t>(type);
  return (code >= 20 && code <= 25) || (code >= 30 && code <= 32) || code == 39 ||
         (code >= 166 && code <= 171);
}

}  // namespace rowbridge::binlog
