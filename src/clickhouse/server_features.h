// What a ClickHouse server of a given version can store, so DDL generation and INSERT setup can
// refuse (Error(kUnsupported), naming type and version) instead of failing half-way.
//
// Version thresholds and where they come from (checked by hand against the 18.16.1 test server
// where marked "verified"; the rest from the ClickHouse changelog / pull requests):
//   UUID, Decimal(P<=38), Enum, FixedString, Nullable, Array   present in 18.16 (verified)
//   LowCardinality   18.12..18.16 experimental: CREATE needs
//   allow_experimental_low_cardinality_type=1
//                    (verified on 18.16: "LowCardinality type is not allowed. Set setting
//                    allow_experimental_low_cardinality_type = 1"); allowed by default from 19.1
//                    (19.1 changelog; not verified here)
//   DateTime64       20.1 (PR #7170; 18.16: "Unknown data type family: DateTime64", verified)
//   Int128, Int256, UInt256, Decimal256
//                    20.8 behind allow_experimental_bigint_types=1 (PR #13097); no setting needed
//                    from 21.6, which also added UInt128 (PR #23631)
//   Date32           21.9 (PR #25774)
//   Bool             21.12 (PR #31072)
//   ReplacingMergeTree(version, is_deleted)   23.2 (PR #41005)
//   ALTER ... MODIFY COLUMN c REMOVE DEFAULT   21.1 (documented by PR #17059, Nov 2020; not
//                    verified). 18.16 rejects it with a syntax error (verified); there a MODIFY
//                    COLUMN c <type> without DEFAULT removes the default (verified).
// 18.16 rejects Date32, DateTime64, Int128, UInt128, Int256, UInt256, Decimal256, Bool with
// "Unknown data type family" (verified).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clickhouse/type_name.h"

namespace rowbridge::clickhouse {

struct ServerVersion {
  uint32_t major = 0;
  uint32_t minor = 0;
  uint32_t patch = 0;

  // "18.16.1", "23.8.2.7", "24.3" (extra components ignored); throws Error(kInvalidArgument).
  static ServerVersion Parse(std::string_view text);
  std::string ToString() const;
  auto operator<=>(const ServerVersion&) const = default;
};

class ServerFeatures {
 public:
  explicit ServerFeatures(ServerVersion version) : version_(version) {}
  const ServerVersion& version() const { return version_; }

  bool HasLowCardinality() const { return AtLeast(18, 12); }
  bool LowCardinalityNeedsSetting() const { return !AtLeast(19, 1); }
  bool HasDateTime64() const { return AtLeast(20, 1); }
  bool HasBigIntegers() const { return AtLeast(20, 8); }  // Int128, Int256, UInt256, Decimal256
  bool BigIntegersNeedSetting() const { return !AtLeast(21, 6); }
  bool HasUInt128() const { return AtLeast(21, 6); }
  bool HasDate32() const { return AtLeast(21, 9); }
  bool HasBool() const { return AtLeast(21, 12); }
  bool HasReplacingIsDeleted() const { return AtLeast(23, 2); }
  bool HasModifyColumnRemove() const { return AtLeast(21, 1); }

  // Throws Error(kUnsupported) naming the first type in the tree this server lacks.
  void CheckType(const TypeDesc& type) const;
  // Settings (name=value) a CREATE TABLE using `type` needs on this server, without duplicates.
  std::vector<std::string> CreateSettingsFor(const TypeDesc& type) const;

 private:
  bool AtLeast(uint32_t major, uint32_t minor) const {
    return version_ >= ServerVersion{major, minor, 0};
  }
  ServerVersion version_;
};

}  // namespace rowbridge::clickhouse
