#include "common/log_fields.h"

namespace rowbridge {
namespace {

thread_local std::vector<LogField> fields;

}  // namespace

LogFields::~LogFields() {
  fields.resize(fields.size() - added_);
}

LogFields& LogFields::Add(std::string key, std::string value) {
  fields.push_back({std::move(key), std::move(value), false});
  ++added_;
  return *this;
}

LogFields& LogFields::AddNumber(std::string key, uint64_t value) {
  fields.push_back({std::move(key), std::to_string(value), true});
  ++added_;
  return *this;
}

LogFields& LogFields::Table(std::string_view database, std::string_view table) {
  Add("database", std::string(database));
  return Add("table", std::string(table));
}

LogFields& LogFields::Position(std::string_view file, uint64_t pos, std::string_view gtid) {
  Add("binlog_file", std::string(file));
  AddNumber("binlog_pos", pos);
  if (!gtid.empty()) Add("gtid", std::string(gtid));
  return *this;
}

const std::vector<LogField>& CurrentLogFields() {
  return fields;
}

}  // namespace rowbridge
