#include "binlog/transaction_payload.h"

#include <zstd.h>

#include <algorithm>

#include "common/error.h"

namespace rowbridge::binlog {

TransactionPayloadEvent ParseTransactionPayload(const Event& event) {
  ByteReader r = event.BodyReader();
  TransactionPayloadEvent p;
  bool have_size = false, have_compression = false;
  uint64_t payload_size = 0;
  // (type, length, value) header fields with packed integers, ended by type 0.
  while (true) {
    uint64_t type = r.LengthEncoded("payload header field type");
    if (type == 0) break;
    uint64_t len = r.LengthEncoded("payload header field length");
    if (len > r.remaining()) r.Corrupt("payload header field overruns the event");
    uint64_t at = r.offset();
    ByteReader v(r.Bytes(static_cast<size_t>(len), "payload header field"), at, event.context);
    switch (type) {
      case 1:
        payload_size = v.LengthEncoded("payload size");
        have_size = true;
        break;
      case 2: {
        uint64_t c = v.LengthEncoded("payload compression type");
        if (c != 0 && c != 255) {
          Fail(ErrorCode::kUnsupported,
               "{} at offset {}: unknown transaction payload compression {}", event.context, at, c);
        }
        p.compression = static_cast<PayloadCompression>(c);
        have_compression = true;
        break;
      }
      case 3:
        p.uncompressed_size = v.LengthEncoded("payload uncompressed size");
        break;
      default:
        break;  // newer field: skipped by its length
    }
  }
  if (!have_size || !have_compression)
    r.Corrupt("TRANSACTION_PAYLOAD header lacks the size or compression field");
  if (payload_size != r.remaining()) {
    r.Corrupt(fmt::format("TRANSACTION_PAYLOAD says {} payload bytes but the event holds {}",
                          payload_size, r.remaining()));
  }
  p.payload_offset = r.offset();
  p.payload = r.Rest();
  return p;
}

std::string_view DecompressTransactionPayload(const TransactionPayloadEvent& p, std::string& out,
                                              size_t max_size, std::string_view context,
                                              uint64_t offset) {
  if (p.compression == PayloadCompression::kNone) {
    out.assign(p.payload);
    return out;
  }
  if (p.uncompressed_size > max_size) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: TRANSACTION_PAYLOAD of {} uncompressed bytes exceeds the {} byte limit",
         context, offset, p.uncompressed_size, max_size);
  }
  ZSTD_DStream* stream = ZSTD_createDStream();
  if (stream == nullptr) Fail(ErrorCode::kInternal, "cannot create a zstd stream");
  struct Free {
    ZSTD_DStream* s;
    ~Free() { ZSTD_freeDStream(s); }
  } free_stream{stream};
  ZSTD_initDStream(stream);
  // The declared size is a hint from untrusted bytes: start from what the compressed bytes can
  // plausibly expand to and grow while zstd really produces output, never past the declaration.
  const size_t limit =
      p.uncompressed_size > 0 ? static_cast<size_t>(p.uncompressed_size) : max_size;
  out.resize(std::min(limit, std::max<size_t>(size_t{1} << 16, p.payload.size() * 16)));
  ZSTD_inBuffer in{p.payload.data(), p.payload.size(), 0};
  size_t produced = 0;
  while (true) {
    if (produced == out.size()) {
      if (out.size() >= limit) {
        Fail(ErrorCode::kCorruption,
             "{} at offset {}: TRANSACTION_PAYLOAD decompresses beyond {} bytes ({})", context,
             offset, limit, p.uncompressed_size > 0 ? "its declared size" : "the limit");
      }
      out.resize(std::min(limit, out.size() * 2 + 1));
    }
    ZSTD_outBuffer o{out.data(), out.size(), produced};
    size_t rc = ZSTD_decompressStream(stream, &o, &in);
    produced = o.pos;
    if (ZSTD_isError(rc)) {
      Fail(ErrorCode::kCorruption, "{} at offset {}: zstd error in TRANSACTION_PAYLOAD: {}",
           context, offset, ZSTD_getErrorName(rc));
    }
    if (rc == 0) break;  // frame complete
    if (in.pos == in.size && o.pos < o.size) {
      Fail(ErrorCode::kCorruption, "{} at offset {}: TRANSACTION_PAYLOAD zstd data is truncated",
           context, offset);
    }
  }
  if (in.pos != in.size) {
    Fail(ErrorCode::kCorruption, "{} at offset {}: {} stray bytes after the zstd frame", context,
         offset, in.size - in.pos);
  }
  out.resize(produced);
  return out;
}

PayloadEventIterator::PayloadEventIterator(std::string_view decompressed, const Event& outer,
                                           std::string_view inner_context)
    : data_(decompressed),
      outer_offset_(outer.offset),
      outer_end_(outer.end_offset),
      file_(outer.file),
      context_(inner_context) {}

bool PayloadEventIterator::Next(Event& event) {
  if (pos_ >= data_.size()) return false;
  ByteReader r(data_.substr(pos_), pos_, context_);
  EventHeader h = ReadEventHeader(r);
  if (h.event_size < kEventHeaderSize || h.event_size > data_.size() - pos_) {
    r.Corrupt(fmt::format("inner event size {} does not fit the payload ({} bytes left)",
                          h.event_size, data_.size() - pos_));
  }
  event.header = h;
  event.bytes = data_.substr(pos_, h.event_size);
  event.body = event.bytes.substr(kEventHeaderSize);
  event.offset = outer_offset_;
  event.end_offset = outer_end_;
  event.body_offset = pos_ + kEventHeaderSize;
  event.context = context_;
  event.file = file_;
  event.in_payload = true;
  pos_ += h.event_size;
  return true;
}

}  // namespace rowbridge::binlog
