#include "config/effective_config.h"

#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "config/units.h"

namespace rowbridge::config {
namespace {

using Json = nlohmann::ordered_json;

std::string Secret(const std::string& value) {
  return value.empty() ? std::string() : std::string(kRedacted);
}

void PutIfSet(Json& object, const char* key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

Json List(const std::vector<std::string>& values) {
  Json list = Json::array();
  for (const std::string& value : values) list.push_back(value);
  return list;
}

Json Tls(const TlsConfig& tls) {
  Json out;
  out["mode"] = TlsModeName(tls.mode);
  PutIfSet(out, "ca", tls.ca);
  PutIfSet(out, "cert", tls.cert);
  PutIfSet(out, "key", tls.key);
  return out;
}

Json Rule(const TableRule& rule) {
  Json out;
  if (rule.match.size() == 1) {
    out["match"] = rule.match[0];
  } else {
    out["match"] = List(rule.match);
  }
  if (!rule.exclude.empty()) out["exclude"] = List(rule.exclude);
  out["target"] = rule.target;
  out["mode"] = TableModeName(rule.mode);
  if (!rule.key.empty()) out["key"] = List(rule.key);
  PutIfSet(out, "partition_by", rule.partition_by);
  if (!rule.include_columns.empty()) out["include_columns"] = List(rule.include_columns);
  if (!rule.exclude_columns.empty()) out["exclude_columns"] = List(rule.exclude_columns);
  Json meta;
  if (rule.mode == TableMode::kChangelog) {
    meta["event_type"] = rule.meta_columns.event_type;
    meta["version"] = rule.meta_columns.version;
  } else {
    meta["version"] = rule.meta_columns.version;
    meta["is_deleted"] = rule.meta_columns.is_deleted;
  }
  out["meta_columns"] = meta;
  out["conversion"] = {{"on_out_of_range", OutOfRangeName(rule.conversion.on_out_of_range)},
                       {"datetime_timezone", rule.conversion.datetime_timezone}};
  out["create_table"] = rule.create_table;
  if (rule.schema_changes != SchemaChanges::kAuto) {
    out["schema_changes"] = rule.schema_changes == SchemaChanges::kApply ? "apply" : "stop";
  }
  if (rule.drop_table != DropTable::kKeep) out["drop_table"] = "drop";
  return out;
}

void Emit(YAML::Emitter& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        Emit(out, item);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& item : value) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string:
      out << value.get<std::string>();
      break;
    case Json::value_t::boolean:
      out << value.get<bool>();
      break;
    case Json::value_t::number_unsigned:
      out << value.get<uint64_t>();
      break;
    case Json::value_t::number_integer:
      out << value.get<int64_t>();
      break;
    default:
      out << YAML::Null;
      break;
  }
}

}  // namespace

Json EffectiveConfigJson(const Config& config) {
  Json root;
  const SourceConfig& s = config.source;
  root["source"] = {{"host", s.host},
                    {"port", s.port},
                    {"user", s.user},
                    {"password", Secret(s.password)},
                    {"server_id", s.server_id},
                    {"flavor", SourceFlavorName(s.flavor)},
                    {"tls", Tls(s.tls)},
                    {"heartbeat_period", FormatDuration(s.heartbeat_period)},
                    {"connect_timeout", FormatDuration(s.connect_timeout)},
                    {"read_timeout", FormatDuration(s.read_timeout)},
                    {"reconnect",
                     {{"initial_backoff", FormatDuration(s.reconnect.initial_backoff)},
                      {"max_backoff", FormatDuration(s.reconnect.max_backoff)}}},
                    {"on_statement_dml", StatementDmlName(s.on_statement_dml)},
                    {"on_purged_position", OnPurgedName(s.on_purged_position)},
                    {"binlog_retention",
                     {{"check_interval", FormatDuration(s.binlog_retention.check_interval)},
                      {"warn_below", FormatDuration(s.binlog_retention.warn_below)}}}};
  const TargetConfig& t = config.target;
  Json target = {{"host", t.host},
                 {"port", t.port},
                 {"user", t.user},
                 {"password", Secret(t.password)},
                 {"database", t.database},
                 {"tls", Tls(t.tls)},
                 {"compression", CompressionName(t.compression)}};
  PutIfSet(target, "cluster", t.cluster);
  target["writers"] = t.writers;
  target["connect_timeout"] = FormatDuration(t.connect_timeout);
  target["query_timeout"] = FormatDuration(t.query_timeout);
  root["target"] = target;
  Json tables = Json::array();
  for (const TableRule& rule : config.tables) tables.push_back(Rule(rule));
  root["tables"] = tables;
  root["snapshot"] = {{"enabled", config.snapshot.enabled},
                      {"chunk_rows", config.snapshot.chunk_rows},
                      {"readers", config.snapshot.readers},
                      {"writers", config.snapshot.writers},
                      {"memory_limit", FormatSize(config.snapshot.memory_limit)},
                      {"keyless_single_chunk", config.snapshot.keyless_single_chunk}};
  root["batch"] = {{"max_rows", config.batch.max_rows},
                   {"max_bytes", FormatSize(config.batch.max_bytes)},
                   {"max_delay", FormatDuration(config.batch.max_delay)},
                   {"min_interval", FormatDuration(config.batch.min_interval)},
                   {"part_rows", config.batch.part_rows}};
  root["memory"] = {{"max_buffered_bytes", FormatSize(config.memory.max_buffered_bytes)}};
  Json state = {{"store", StateStoreName(config.state.store)},
                {"checkpoint_interval", FormatDuration(config.state.checkpoint_interval)}};
  if (config.state.store == StateStore::kFile) {
    state["path"] = config.state.path;
  } else {
    state["table"] = config.state.table;
  }
  root["state"] = state;
  Json health = {{"max_silence", FormatDuration(config.http.health.max_silence)}};
  if (config.http.health.max_lag) health["max_lag"] = FormatDuration(*config.http.health.max_lag);
  root["http"] = {
      {"enabled", config.http.enabled}, {"listen", config.http.listen}, {"health", health}};
  PutIfSet(root["http"], "token", Secret(config.http.token));
  root["ha"] = {{"lock", HaLockName(config.ha.lock)}, {"lease", FormatDuration(config.ha.lease)}};
  if (config.ha.lock == HaLock::kZooKeeper) {
    root["ha"]["hosts"] = config.ha.hosts;
    root["ha"]["path"] = config.ha.path;
  }
  root["log"] = {{"level", LogLevelName(config.log.level)},
                 {"format", LogFormatName(config.log.format)}};
  return root;
}

std::string RenderEffectiveConfig(const Config& config, RenderFormat format) {
  Json json = EffectiveConfigJson(config);
  // Names from the file may hold bytes that are not UTF-8; show them replaced rather than fail.
  if (format == RenderFormat::kJson) {
    return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  }
  YAML::Emitter out;
  Emit(out, json);
  if (!out.good()) {
    Fail(ErrorCode::kConfig, "cannot render the configuration as YAML: {}", out.GetLastError());
  }
  return std::string(out.c_str()) + "\n";
}

}  // namespace rowbridge::config
