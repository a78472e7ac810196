#include "config/loader.h"

#include <fmt/ranges.h>
#include <sys/stat.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "config/loader_impl.h"
#include "config/problems.h"
#include "config/target_template.h"
#include "config/units.h"
#include "config/yaml_reader.h"

namespace rowbridge::config {
namespace {

constexpr size_t kMaxConfigBytes = 1 << 20;

// Counts documents without building them.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

ConfigLoader::ConfigLoader(ReadContext& ctx, const LoadOptions& options,
                           std::string_view source_name)
    : ctx_(ctx), options_(options), source_name_(source_name) {}

Config ConfigLoader::Read(const YAML::Node& root_node) {
  Config config;
  MapReader root(ctx_, root_node, "", root_node.Mark());
  if (Section(root, "source")) ReadSource(root.Map("source"), config.source);
  if (Section(root, "target")) ReadTarget(root.Map("target"), config.target);
  if (Section(root, "tables")) ReadTables(root, config);
  ReadSnapshot(root.Map("snapshot"), config.snapshot);
  ReadBatch(root.Map("batch"), config.batch);
  ReadMemory(root.Map("memory"), config);
  ReadState(root.Map("state"), config.state);
  ReadHttp(root.Map("http"), config);
  ReadHa(root.Map("ha"), config.ha);
  ReadLog(root.Map("log"), config.log);
  root.Finish();
  return config;
}

bool ConfigLoader::Section(MapReader& root, std::string_view name) {
  if (root.Has(name)) return true;
  AddProblem(ctx_, root.mark(), name, "required section is missing");
  return false;
}

void ConfigLoader::Problem(const MapReader& m, std::string_view key, std::string message) {
  AddProblem(ctx_, m.MarkOf(key), m.PathOf(key), std::move(message));
}

void ConfigLoader::Warn(const YAML::Mark& mark, std::string path, std::string message) {
  if (options_.warnings == nullptr) return;
  options_.warnings->push_back(
      config::Problem{mark.line + 1, mark.column + 1, std::move(path), std::move(message)}.Render(
          source_name_));
}

void ConfigLoader::NonEmpty(MapReader& m, std::string_view key, std::string& out) {
  std::string value;
  if (!m.String(key, value)) return;
  if (value.empty()) {
    Problem(m, key, "must not be empty (remove the key to use the default)");
    return;
  }
  out = std::move(value);
}

std::string ConfigLoader::ResolvePath(const std::string& path) const {
  if (path.empty() || options_.base_directory.empty()) return path;
  std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(options_.base_directory) / p).lexically_normal().string();
}

namespace {

[[noreturn]] void FailYaml(std::string_view source_name, std::string_view text,
                           const YAML::Exception& e) {
  if (e.mark.is_null()) Fail(ErrorCode::kConfig, "{}: invalid YAML: {}", source_name, e.msg);
  // In flow style ({...} or [...]) braces end the value, so an unquoted ${VAR} breaks the syntax
  // with a message that does not say so.
  std::string hint;
  if (e.mark.pos >= 0 && static_cast<size_t>(e.mark.pos) <= text.size()) {
    size_t line_start = text.rfind('\n', e.mark.pos == 0 ? 0 : e.mark.pos - 1);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::string_view line = text.substr(line_start, text.find('\n', line_start) - line_start);
    if (line.find("${") != std::string_view::npos && line.find_first_of("{[") < line.find("${")) {
      hint = " (inside { } or [ ], put values with ${...} in quotes: \"${VAR}\")";
    }
  }
  Fail(ErrorCode::kConfig, "{}:{}:{}: invalid YAML: {}{}", source_name, e.mark.line + 1,
       e.mark.column + 1, e.msg, hint);
}

}  // namespace

Config ParseConfig(std::string_view yaml, std::string_view source_name,
                   const LoadOptions& options) {
  if (yaml.size() > kMaxConfigBytes) {
    Fail(ErrorCode::kConfig, "{}: is {} bytes; a config file may have at most {}", source_name,
         yaml.size(), FormatSize(kMaxConfigBytes));
  }
  const std::string text(yaml);
  YAML::Node root;
  try {
    // Not YAML::LoadAll: yaml-cpp 0.7 loops forever (allocating an empty document per turn) on a
    // stray ',' outside brackets, because its parser then never consumes the token. So count at
    // most two documents, then load the first.
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentCounter counter;
    int documents = 0;
    while (documents < 2 && parser.HandleNextDocument(counter)) ++documents;
    if (documents > 1) {
      Fail(ErrorCode::kConfig,
           "{}: holds more than one YAML document (a --- separator, or a stray character such as "
           "',' outside brackets); a config is a single document",
           source_name);
    }
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    FailYaml(source_name, yaml, e);
  }
  if (!root.IsDefined() || root.IsNull()) {
    Fail(ErrorCode::kConfig, "{}: is empty; a config needs at least source, target and tables",
         source_name);
  }
  if (!root.IsMap()) {
    Fail(ErrorCode::kConfig,
         "{}:{}:{}: the top level must be a mapping with the sections source, target, tables ...",
         source_name, root.Mark().line + 1, root.Mark().column + 1);
  }
  Problems problems;
  ReadContext ctx{problems, options.env, {}};
  Config config;
  try {
    config = ConfigLoader(ctx, options, source_name).Read(root);
  } catch (const YAML::Exception& e) {
    FailYaml(source_name, yaml, e);
  }
  if (!problems.empty()) problems.Throw(source_name);
  constexpr uint32_t kReadableByOthers = 0004;
  if (options.warnings != nullptr && (options.file_mode & kReadableByOthers) != 0 &&
      !ctx.literal_secrets.empty()) {
    options.warnings->push_back(fmt::format(
        "{}: every user of this machine can read it (mode {:04o}), and it holds {} as text; "
        "`chmod 600 {}`, or take the value from the environment (e.g. password: "
        "${{ROWBRIDGE_SOURCE_PASSWORD}})",
        source_name, options.file_mode & 07777, fmt::join(ctx.literal_secrets, ", "), source_name));
  }
  return config;
}

Config LoadConfigFile(const std::string& path, LoadOptions options) {
  std::ifstream file(path, std::ios::binary);
  if (!file) Fail(ErrorCode::kIo, "cannot open config file {}: {}", path, std::strerror(errno));
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) Fail(ErrorCode::kIo, "cannot read config file {}", path);
  if (options.base_directory.empty()) {
    options.base_directory =
        std::filesystem::absolute(std::filesystem::path(path)).parent_path().string();
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) options.file_mode = static_cast<uint32_t>(st.st_mode);
  return ParseConfig(text.str(), path, options);
}

}  // namespace rowbridge::config
