// MariaDB's compressed binlog payloads (log_bin_compress=ON): QUERY_COMPRESSED's statement text
// and the row images of *_ROWS_COMPRESSED events. The stored form is one header byte
// (0x80 | number of length bytes, 1..4), the uncompressed length big-endian in that many bytes,
// then a zlib stream.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rowbridge::binlog {

// Largest uncompressed size accepted; a corrupt length must not make us allocate gigabytes.
inline constexpr size_t kMaxMariaUncompressedSize = size_t{1} << 30;

// Decompresses `stored` into `out` (reused; its previous content is replaced) and returns a view
// of it. Throws Error(kCorruption) naming `context` and `offset` on a bad header or zlib data.
std::string_view MariaUncompress(std::string_view stored, std::string& out,
                                 std::string_view context, uint64_t offset);

}  // namespace rowbridge::binlog
