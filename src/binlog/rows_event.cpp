#include "binlog/rows_event.h"

#include "binlog/mariadb_compression.h"
#include "common/error.h"

namespace rowbridge::binlog {

namespace {

struct RowsTypeInfo {
  RowsKind kind;
  uint8_t version;
  bool compressed;
};

RowsTypeInfo Classify(EventType type, const Event& event) {
  switch (type) {
    case EventType::kPreGaWriteRows:
      return {RowsKind::kWrite, 0, false};
    case EventType::kPreGaUpdateRows:
      return {RowsKind::kUpdate, 0, false};
    case EventType::kPreGaDeleteRows:
      return {RowsKind::kDelete, 0, false};
    case EventType::kWriteRowsV1:
      return {RowsKind::kWrite, 1, false};
    case EventType::kUpdateRowsV1:
      return {RowsKind::kUpdate, 1, false};
    case EventType::kDeleteRowsV1:
      return {RowsKind::kDelete, 1, false};
    case EventType::kWriteRows:
      return {RowsKind::kWrite, 2, false};
    case EventType::kUpdateRows:
    case EventType::kPartialUpdateRows:
      return {RowsKind::kUpdate, 2, false};
    case EventType::kDeleteRows:
      return {RowsKind::kDelete, 2, false};
    case EventType::kMariaWriteRowsCompressedV1:
      return {RowsKind::kWrite, 1, true};
    case EventType::kMariaUpdateRowsCompressedV1:
      return {RowsKind::kUpdate, 1, true};
    case EventType::kMariaDeleteRowsCompressedV1:
      return {RowsKind::kDelete, 1, true};
    case EventType::kMariaWriteRowsCompressed:
      return {RowsKind::kWrite, 2, true};
    case EventType::kMariaUpdateRowsCompressed:
      return {RowsKind::kUpdate, 2, true};
    case EventType::kMariaDeleteRowsCompressed:
      return {RowsKind::kDelete, 2, true};
    default:
      Fail(ErrorCode::kInternal, "{} at offset {}: event type {} is not a rows event",
           event.context, event.offset, static_cast<unsigned>(type));
  }
}

}  // namespace

RowsEvent ParseRowsEvent(const Event& event, const FormatDescription& format,
                         std::string& scratch) {
  RowsEvent ev;
  ev.type = event.type();
  RowsTypeInfo info = Classify(ev.type, event);
  ev.kind = info.kind;
  ev.version = info.version;
  ev.compressed = info.compressed;
  ev.partial_json = ev.type == EventType::kPartialUpdateRows;
  ev.context = event.context;
  ev.event_offset = event.offset;

  ByteReader r = event.BodyReader();
  uint8_t post_header = format.PostHeaderLength(ev.type);
  if (post_header == 0) post_header = ev.version == 2 ? 10 : 8;  // FDEs older than the type
  ev.table_id = post_header == 6 ? r.U32("table id") : r.U48("table id");
  ev.flags = r.U16("rows flags");
  size_t used = post_header == 6 ? 6 : 8;
  if (ev.version == 2) {
    uint16_t extra_len = r.U16("rows extra data length");
    used += 2;
    if (extra_len < 2) r.Corrupt(fmt::format("rows extra data length {} is below 2", extra_len));
    ev.extra_data = r.Bytes(extra_len - 2, "rows extra data");
  }
  if (post_header > used && ev.version != 2) r.Skip(post_header - used, "rows post-header");

  uint64_t width = r.LengthEncoded("rows column count");
  if (width > UINT32_MAX || (width + 7) / 8 > r.remaining()) {
    r.Corrupt(fmt::format("rows event column count {} exceeds the event", width));
  }
  ev.column_count = static_cast<uint32_t>(width);
  size_t bitmap_bytes = (ev.column_count + 7) / 8;
  ev.columns = r.Bytes(bitmap_bytes, "columns-present bitmap");
  // v0 (5.1 pre-GA) UPDATE events carry a single bitmap for both images.
  ev.columns_after = (ev.kind == RowsKind::kUpdate && ev.version != 0)
                         ? r.Bytes(bitmap_bytes, "after-image columns bitmap")
                         : ev.columns;
  if (ev.compressed) {
    uint64_t at = r.offset();
    ev.rows = MariaUncompress(r.Rest(), scratch, event.context, at);
    ev.rows_offset = event.offset;
  } else {
    ev.rows_offset = r.offset();
    ev.rows = r.Rest();
  }
  return ev;
}

}  // namespace rowbridge::binlog
