// TRANSACTION_PAYLOAD_EVENT (MySQL 8.0.20+, binlog_transaction_compression=ON): a whole
// transaction's events, zstd-compressed, inside one event. The inner events are complete events
// with common headers but without checksums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "binlog/event.h"

namespace rowbridge::binlog {

enum class PayloadCompression : uint8_t { kZstd = 0, kNone = 255 };

struct TransactionPayloadEvent {
  PayloadCompression compression = PayloadCompression::kNone;
  uint64_t uncompressed_size = 0;  // 0 if the event did not say
  std::string_view payload;        // the compressed bytes
  uint64_t payload_offset = 0;     // file offset of payload[0]
};

TransactionPayloadEvent ParseTransactionPayload(const Event& event);

// Decompresses into `out` (reused) and returns it. Output beyond `max_size` bytes is an error,
// so a corrupt or hostile payload cannot exhaust memory.
std::string_view DecompressTransactionPayload(const TransactionPayloadEvent& payload,
                                              std::string& out, size_t max_size,
                                              std::string_view context, uint64_t offset);

// Walks the inner events of a decompressed payload.
class PayloadEventIterator {
 public:
  PayloadEventIterator() = default;
  // `outer` is the TRANSACTION_PAYLOAD event; `inner_context` (owned by the caller) names the
  // decompressed payload in errors.
  PayloadEventIterator(std::string_view decompressed, const Event& outer,
                       std::string_view inner_context);
  // False after the last event; throws Error(kCorruption) on a malformed inner event.
  bool Next(Event& event);

 private:
  std::string_view data_;
  size_t pos_ = 0;
  uint64_t outer_offset_ = 0;
  uint64_t outer_end_ = 0;
  std::string_view file_;
  std::string_view context_;
};

}  // namespace rowbridge::binlog
