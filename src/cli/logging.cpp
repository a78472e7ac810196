#include "cli/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string_view>
#include <vector>

#include "common/log_fields.h"

namespace rowbridge::cli {

namespace {

void AppendJsonString(std::string_view text, spdlog::memory_buf_t& dest) {
  for (char c : text) {
    switch (c) {
      case '"':
        dest.append(std::string_view("\\\""));
        break;
      case '\\':
        dest.append(std::string_view("\\\\"));
        break;
      case '\n':
        dest.append(std::string_view("\\n"));
        break;
      case '\r':
        dest.append(std::string_view("\\r"));
        break;
      case '\t':
        dest.append(std::string_view("\\t"));
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(dest), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          dest.push_back(c);
        }
    }
  }
}

// %j: the message as the contents of a JSON string.
class JsonMessageFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    AppendJsonString(std::string_view(msg.payload.data(), msg.payload.size()), dest);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

// %F: the thread's LogFields as more members of the JSON object, each with a leading comma; of a
// key given more than once, the innermost value.
class JsonFieldsFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const std::vector<LogField>& fields = CurrentLogFields();
    for (size_t i = 0; i < fields.size(); ++i) {
      bool overridden = false;
      for (size_t j = i + 1; j < fields.size() && !overridden; ++j) {
        overridden = fields[j].key == fields[i].key;
      }
      if (overridden) continue;
      dest.append(std::string_view(",\""));
      AppendJsonString(fields[i].key, dest);
      dest.append(std::string_view("\":"));
      if (fields[i].number) {
        dest.append(std::string_view(fields[i].value));
      } else {
        dest.push_back('"');
        AppendJsonString(fields[i].value, dest);
        dest.push_back('"');
      }
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonFieldsFlag>();
  }
};

spdlog::level::level_enum LevelOf(config::LogLevel level) {
  switch (level) {
    case config::LogLevel::kTrace:
      return spdlog::level::trace;
    case config::LogLevel::kDebug:
      return spdlog::level::debug;
    case config::LogLevel::kInfo:
      return spdlog::level::info;
    case config::LogLevel::kWarn:
      return spdlog::level::warn;
    case config::LogLevel::kError:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

}  // namespace

void ConfigureLogging(const config::LogConfig& log) {
  auto logger = std::make_shared<spdlog::logger>("rowbridge",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  if (log.format == config::LogFormat::kJson) {
    formatter->add_flag<JsonMessageFlag>('j');
    formatter->add_flag<JsonFieldsFlag>('F').set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l","msg":"%j"%F})");
  } else {
    formatter->set_pattern("%Y-%m-%d %H:%M:%S.%e %-5l %v");
  }
  logger->set_formatter(std::move(formatter));
  logger->set_level(LevelOf(log.level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace rowbridge::cli
