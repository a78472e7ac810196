// `rowbridge dump-binlog`: decodes binlog files offline and prints their row changes the way
// `mysqlbinlog --base64-output=decode-rows -v` prints its `###` lines, as JSON lines, or as an
// event listing. The printing core is a class so tests can run it on fixtures without a process.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <string>

#include "binlog/event.h"
#include "binlog/row_cursor.h"
#include "binlog/table_map_cache.h"

namespace rowbridge::cli {

enum class DumpFormat { kMysqlbinlog, kJson, kEvents };

struct DumpBinlogOptions {
  DumpFormat format = DumpFormat::kMysqlbinlog;
  uint64_t start_position = 4;          // in the first file
  uint64_t stop_position = UINT64_MAX;  // in the last file: events starting here or later stop
};

class BinlogDumper {
 public:
  // Output goes to `out` through an internal buffer (flushed when large and at Finish()).
  BinlogDumper(const DumpBinlogOptions& options, std::FILE* out);
  ~BinlogDumper();

  // Dumps one file; `first`/`last` say whether the start/stop positions apply to it.
  void DumpFile(const std::string& path, bool first, bool last);
  void Finish();

  // For tests: what was printed and not yet flushed is kept when out is nullptr.
  const std::string& buffered() const { return buffer_; }

 private:
  void OnEvent(const binlog::Event& event, const binlog::FormatDescription& format,
               const binlog::TableMapCache& tables);
  void PrintEventLine(const binlog::Event& event, const binlog::FormatDescription& format);
  void PrintRows(const binlog::Event& event, const binlog::FormatDescription& format,
                 const binlog::TableMapCache& tables);
  void PrintMysqlbinlogRow(const binlog::RowsEvent& rows, const binlog::TableInfo& table);
  void PrintJsonRow(const binlog::Event& event, const binlog::RowsEvent& rows,
                    const binlog::TableInfo& table);
  void AppendJsonImage(std::span<const binlog::Cell> cells);
  void MaybeFlush();

  DumpBinlogOptions options_;
  std::FILE* out_;
  std::string buffer_;
  std::string scratch_;  // decompressed rows / queries
  binlog::RowCursor cursor_;
  std::string gtid_;  // GTID of the current transaction, "" if none
};

void RegisterDumpBinlog(CLI::App& app);

}  // namespace rowbridge::cli
