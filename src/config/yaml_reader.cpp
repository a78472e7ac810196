#include "config/yaml_reader.h"

#include <algorithm>

#include "common/error.h"
#include "config/suggest.h"
#include "config/units.h"

namespace rowbridge::config {
namespace {

std::string_view NodeKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Undefined:
      return "nothing";
  }
  return "something else";
}

std::string Quote(std::string_view text) {
  // Control characters would garble the one-line messages.
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

std::string JoinChoices(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

void AddProblem(ReadContext& ctx, const YAML::Mark& mark, std::string_view path,
                std::string message) {
  int line = mark.is_null() ? 0 : mark.line + 1;
  int column = mark.is_null() ? 0 : mark.column + 1;
  ctx.problems.Add(line, column, std::string(path), std::move(message));
}

std::optional<ScalarValue> ReadScalar(ReadContext& ctx, const YAML::Node& node,
                                      std::string_view path, std::string_view expected,
                                      const YAML::Mark* null_mark, bool secret) {
  if (node.IsNull()) {
    // An empty value's own mark points at whatever follows it; the key is the better place.
    AddProblem(
        ctx, null_mark != nullptr ? *null_mark : node.Mark(), path,
        fmt::format("has no value (expected {}; remove the key to use the default)", expected));
    return std::nullopt;
  }
  if (!node.IsScalar()) {
    AddProblem(ctx, node.Mark(), path,
               fmt::format("expected {}, got {}", expected, NodeKind(node)));
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  try {
    Substituted substituted =
        SubstituteEnvironment(text, ctx.env, secret ? Echo::kNothing : Echo::kReferences);
    ScalarValue out;
    out.value = std::move(substituted.value);
    out.shown = secret ? std::string("(a secret, not shown)") : Quote(text);
    out.from_environment = substituted.from_environment;
    if (out.from_environment && !secret) out.shown += " (from the environment)";
    out.mark = node.Mark();
    return out;
  } catch (const Error& e) {
    AddProblem(ctx, node.Mark(), path, e.what());
    return std::nullopt;
  }
}

MapReader::MapReader(ReadContext& ctx, const YAML::Node& node, std::string path,
                     YAML::Mark parent_mark)
    : ctx_(ctx), path_(std::move(path)), mark_(parent_mark) {
  if (!node.IsDefined() || node.IsNull()) return;
  mark_ = node.Mark();
  if (!node.IsMap()) {
    AddProblem(ctx_, mark_, path_, fmt::format("expected a mapping, got {}", NodeKind(node)));
    valid_ = false;
    return;
  }
  for (const auto& item : node) {
    const YAML::Node& key = item.first;
    if (!key.IsScalar()) {
      AddProblem(ctx_, key.Mark(), path_,
                 fmt::format("keys must be plain names, got {}", NodeKind(key)));
      continue;
    }
    const std::string& name = key.Scalar();
    auto previous = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const Entry& e) { return e.key == name; });
    if (previous != entries_.end()) {
      AddProblem(
          ctx_, key.Mark(), PathOf(name),
          fmt::format("duplicate key (first given at line {})", previous->key_mark.line + 1));
      continue;
    }
    entries_.push_back({name, item.second, key.Mark(), false});
  }
}

std::string MapReader::PathOf(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  return fmt::format("{}.{}", path_, key);
}

const MapReader::Entry* MapReader::Find(std::string_view key) const {
  for (const Entry& entry : entries_) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

YAML::Mark MapReader::MarkOf(std::string_view key) const {
  const Entry* entry = Find(key);
  if (entry == nullptr) return mark_;
  YAML::Mark mark = entry->value.Mark();
  return mark.is_null() || entry->value.IsNull() ? entry->key_mark : mark;
}

const MapReader::Entry* MapReader::Take(std::string_view key, Presence presence) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
  for (Entry& entry : entries_) {
    if (entry.key == key) {
      entry.used = true;
      return &entry;
    }
  }
  if (presence == Presence::kRequired && valid_) {
    AddProblem(ctx_, mark_, PathOf(key), "required key is missing");
  }
  return nullptr;
}

std::optional<ScalarValue> MapReader::Scalar(std::string_view key, std::string_view expected,
                                             Presence presence) {
  const Entry* entry = Take(key, presence);
  if (entry == nullptr) return std::nullopt;
  return ReadScalar(ctx_, entry->value, PathOf(key), expected, &entry->key_mark);
}

bool MapReader::String(std::string_view key, std::string& out, Presence presence) {
  std::optional<ScalarValue> scalar = Scalar(key, "a string", presence);
  if (!scalar) return false;
  if (presence == Presence::kRequired && scalar->value.empty()) {
    AddProblem(ctx_, scalar->mark, PathOf(key), "must not be empty");
    return false;
  }
  out = std::move(scalar->value);
  return true;
}

bool MapReader::Secret(std::string_view key, std::string& out) {
  const Entry* entry = Take(key, Presence::kOptional);
  if (entry == nullptr) return false;
  std::optional<ScalarValue> scalar =
      ReadScalar(ctx_, entry->value, PathOf(key), "a string", &entry->key_mark, /*secret=*/true);
  if (!scalar) return false;
  if (!scalar->from_environment && !scalar->value.empty()) {
    ctx_.literal_secrets.push_back(PathOf(key));
  }
  out = std::move(scalar->value);
  return true;
}

bool MapReader::Bool(std::string_view key, bool& out) {
  std::optional<ScalarValue> scalar = Scalar(key, "true or false", Presence::kOptional);
  if (!scalar) return false;
  if (scalar->value == "true") {
    out = true;
    return true;
  }
  if (scalar->value == "false") {
    out = false;
    return true;
  }
  AddProblem(ctx_, scalar->mark, PathOf(key),
             fmt::format("expected true or false, got {}", scalar->shown));
  return false;
}

bool MapReader::UInt(std::string_view key, uint64_t& out, uint64_t min, uint64_t max,
                     Presence presence) {
  std::optional<ScalarValue> scalar = Scalar(key, "an integer", presence);
  if (!scalar) return false;
  const std::string& text = scalar->value;
  uint64_t value = 0;
  bool ok = !text.empty() && text.size() <= 20;
  for (char c : text) {
    if (c < '0' || c > '9' || __builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(c - '0'), &value)) {
      ok = false;
      break;
    }
  }
  if (!ok || value < min || value > max) {
    AddProblem(ctx_, scalar->mark, PathOf(key),
               fmt::format("expected an integer from {} to {}, got {}", min, max, scalar->shown));
    return false;
  }
  out = value;
  return true;
}

bool MapReader::Size(std::string_view key, uint64_t& out, uint64_t min, uint64_t max) {
  std::optional<ScalarValue> scalar = Scalar(key, "a size", Presence::kOptional);
  if (!scalar) return false;
  uint64_t value;
  try {
    value = ParseSize(scalar->value);
  } catch (const Error& e) {
    AddProblem(ctx_, scalar->mark, PathOf(key),
               scalar->from_environment
                   ? fmt::format("expected a size such as 64MiB, got {}", scalar->shown)
                   : std::string(e.what()));
    return false;
  }
  if (value < min || value > max) {
    AddProblem(ctx_, scalar->mark, PathOf(key),
               fmt::format("must be from {} to {}, got {}", FormatSize(min), FormatSize(max),
                           scalar->shown));
    return false;
  }
  out = value;
  return true;
}

bool MapReader::Duration(std::string_view key, std::chrono::milliseconds& out,
                         std::chrono::milliseconds min, std::chrono::milliseconds max) {
  std::optional<ScalarValue> scalar = Scalar(key, "a duration", Presence::kOptional);
  if (!scalar) return false;
  std::chrono::milliseconds value;
  try {
    value = ParseDuration(scalar->value);
  } catch (const Error& e) {
    AddProblem(ctx_, scalar->mark, PathOf(key),
               scalar->from_environment
                   ? fmt::format("expected a duration such as 10s, got {}", scalar->shown)
                   : std::string(e.what()));
    return false;
  }
  if (value < min || value > max) {
    AddProblem(ctx_, scalar->mark, PathOf(key),
               fmt::format("must be from {} to {}, got {}", FormatDuration(min),
                           FormatDuration(max), scalar->shown));
    return false;
  }
  out = value;
  return true;
}

std::optional<size_t> MapReader::EnumIndex(std::string_view key,
                                           const std::vector<std::string_view>& names) {
  std::optional<ScalarValue> scalar =
      Scalar(key, fmt::format("one of {}", JoinChoices(names)), Presence::kOptional);
  if (!scalar) return std::nullopt;
  for (size_t i = 0; i < names.size(); ++i) {
    if (scalar->value == names[i]) return i;
  }
  std::string suggestion = ClosestMatch(scalar->value, names);
  AddProblem(ctx_, scalar->mark, PathOf(key),
             fmt::format("unknown value {}{} (choose one of: {})", scalar->shown,
                         suggestion.empty() ? "" : fmt::format(", did you mean {}?", suggestion),
                         JoinChoices(names)));
  return std::nullopt;
}

std::optional<std::vector<YAML::Node>> MapReader::List(std::string_view key, Presence presence) {
  const Entry* entry = Take(key, presence);
  if (entry == nullptr) return std::nullopt;
  if (!entry->value.IsSequence()) {
    AddProblem(ctx_, entry->value.Mark().is_null() ? entry->key_mark : entry->value.Mark(),
               PathOf(key), fmt::format("expected a list, got {}", NodeKind(entry->value)));
    return std::nullopt;
  }
  std::vector<YAML::Node> items;
  for (const auto& item : entry->value) items.push_back(item);
  return items;
}

bool MapReader::StringList(std::string_view key, std::vector<std::string>& out, bool allow_single,
                           Presence presence) {
  const Entry* entry = Take(key, presence);
  if (entry == nullptr) return false;
  const std::string path = PathOf(key);
  if (allow_single && (entry->value.IsScalar() || entry->value.IsNull())) {
    std::optional<ScalarValue> scalar =
        ReadScalar(ctx_, entry->value, path, "a string", &entry->key_mark);
    if (!scalar) return false;
    if (scalar->value.empty()) {
      AddProblem(ctx_, scalar->mark, path, "must not be empty");
      return false;
    }
    out = {std::move(scalar->value)};
    return true;
  }
  if (!entry->value.IsSequence()) {
    AddProblem(ctx_, entry->value.Mark(), path,
               fmt::format("expected a list of strings, got {}", NodeKind(entry->value)));
    return false;
  }
  std::vector<std::string> values;
  bool ok = true;
  size_t index = 0;
  for (const auto& item : entry->value) {
    std::string item_path = fmt::format("{}[{}]", path, index++);
    std::optional<ScalarValue> scalar = ReadScalar(ctx_, item, item_path, "a string");
    if (!scalar) {
      ok = false;
      continue;
    }
    if (scalar->value.empty()) {
      AddProblem(ctx_, scalar->mark, item_path, "must not be empty");
      ok = false;
      continue;
    }
    if (std::find(values.begin(), values.end(), scalar->value) != values.end()) {
      AddProblem(ctx_, scalar->mark, item_path, fmt::format("{} is listed twice", scalar->shown));
      ok = false;
      continue;
    }
    values.push_back(std::move(scalar->value));
  }
  if (!ok) return false;
  if (values.empty() && presence == Presence::kRequired) {
    AddProblem(ctx_, entry->value.Mark(), path, "must not be empty");
    return false;
  }
  out = std::move(values);
  return true;
}

MapReader MapReader::Map(std::string_view key) {
  const Entry* entry = Take(key, Presence::kOptional);
  if (entry == nullptr) return MapReader(ctx_, YAML::Node(), PathOf(key), mark_);
  return MapReader(ctx_, entry->value, PathOf(key), entry->key_mark);
}

void MapReader::Finish() {
  for (const Entry& entry : entries_) {
    if (entry.used) continue;
    std::string suggestion = ClosestMatch(entry.key, known_);
    std::string message =
        suggestion.empty() ? fmt::format("unknown key (valid keys here: {})", JoinChoices(known_))
                           : fmt::format("unknown key (did you mean {}?)", suggestion);
    AddProblem(ctx_, entry.key_mark, PathOf(entry.key), message);
  }
}

}  // namespace rowbridge::config
