// Structured fields of log lines: while a LogFields lives, every line its thread logs carries its
// fields, which the JSON log format writes beside "msg" ({"time":...,"msg":...,"database":"shop",
// "table":"orders"}), so a log pipeline can filter by table or position without parsing the
// message. The text format leaves them out: its messages name the same things.
//
// Fields nest: an inner LogFields adds to the outer ones, and a key given twice shows its inner
// value. LogFields are scoped objects on the stack of the thread that logs (spdlog formats
// synchronously, on the logging thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge {

struct LogField {
  std::string key;
  std::string value;
  bool number = false;  // written without quotes
};

class LogFields {
 public:
  LogFields() = default;
  ~LogFields();
  LogFields(const LogFields&) = delete;
  LogFields& operator=(const LogFields&) = delete;

  LogFields& Add(std::string key, std::string value);
  LogFields& AddNumber(std::string key, uint64_t value);
  // "database" and "table".
  LogFields& Table(std::string_view database, std::string_view table);
  // "binlog_file" and "binlog_pos", and "gtid" when not empty.
  LogFields& Position(std::string_view file, uint64_t pos, std::string_view gtid = {});

 private:
  size_t added_ = 0;
};

// The fields of the calling thread, outermost first (a key may repeat: the last one counts).
const std::vector<LogField>& CurrentLogFields();

}  // namespace rowbridge
