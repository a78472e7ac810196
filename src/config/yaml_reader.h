// Typed reading of one YAML mapping for the config loader. Every getter substitutes ${VAR}
// references, converts and range-checks the value, and on any problem records it (with key path
// and line:column) and leaves the output untouched, so the caller continues with the default and
// later problems are found too. Finish() reports keys no getter asked for, with "did you mean".
//
// Values that came from the environment are never quoted back in messages (they may be secrets);
// the message shows the text as written in the file instead.
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/env_substitution.h"
#include "config/problems.h"

namespace rowbridge::config {

struct ReadContext {
  Problems& problems;
  const EnvLookup& env;
  // Paths of secrets (MapReader::Secret) written into the file as text rather than taken from the
  // environment, for the warning about a config file others can read.
  std::vector<std::string> literal_secrets;
};

// A scalar after substitution.
struct ScalarValue {
  std::string value;
  std::string shown;              // for messages: "\"text\"" or "\"${VAR}\" (from the environment)"
  bool from_environment = false;  // `value` must not appear in messages
  YAML::Mark mark;
};

void AddProblem(ReadContext& ctx, const YAML::Mark& mark, std::string_view path,
                std::string message);

// Reads `node` as a scalar (`expected` names the type for the message if it is not one). A null
// value is reported at `null_mark` if given (its key), since an empty value has no place. A
// `secret`'s text never appears in a message, not even the part of it a bad ${VAR} reference
// would quote.
std::optional<ScalarValue> ReadScalar(ReadContext& ctx, const YAML::Node& node,
                                      std::string_view path, std::string_view expected,
                                      const YAML::Mark* null_mark = nullptr, bool secret = false);

enum class Presence { kOptional, kRequired };

class MapReader {
 public:
  // `node` may be a mapping, or null/absent (an empty section: everything takes its default).
  // `parent_mark` locates problems about missing keys when the section itself is absent.
  MapReader(ReadContext& ctx, const YAML::Node& node, std::string path, YAML::Mark parent_mark);

  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // The key's value position if present, else the mapping's.
  YAML::Mark MarkOf(std::string_view key) const;
  std::string PathOf(std::string_view key) const;
  const std::string& path() const { return path_; }
  YAML::Mark mark() const { return mark_; }

  // Each returns true if the key was present and its value valid (then `out` is set).
  bool String(std::string_view key, std::string& out, Presence presence = Presence::kOptional);
  // A password or token: String whose text no message shows; a literal value (not from the
  // environment) is recorded in ReadContext::literal_secrets.
  bool Secret(std::string_view key, std::string& out);
  bool Bool(std::string_view key, bool& out);
  bool UInt(std::string_view key, uint64_t& out, uint64_t min, uint64_t max,
            Presence presence = Presence::kOptional);
  template <typename T>
  bool UInt(std::string_view key, T& out, uint64_t min, uint64_t max,
            Presence presence = Presence::kOptional) {
    uint64_t value = 0;
    if (!UInt(key, value, min, max, presence)) return false;
    out = static_cast<T>(value);
    return true;
  }
  bool Size(std::string_view key, uint64_t& out, uint64_t min, uint64_t max);
  bool Duration(std::string_view key, std::chrono::milliseconds& out, std::chrono::milliseconds min,
                std::chrono::milliseconds max);
  template <typename E>
  bool Enum(std::string_view key, E& out,
            std::initializer_list<std::pair<std::string_view, E>> choices) {
    std::vector<std::string_view> names;
    for (const auto& choice : choices) names.push_back(choice.first);
    std::optional<size_t> index = EnumIndex(key, names);
    if (!index) return false;
    out = std::data(choices)[*index].second;
    return true;
  }
  // A list of non-empty strings; with `allow_single`, a lone string counts as a list of one.
  bool StringList(std::string_view key, std::vector<std::string>& out, bool allow_single = false,
                  Presence presence = Presence::kOptional);
  // A nested mapping (absent or null: an empty reader).
  MapReader Map(std::string_view key);
  // The items of a list value; nullopt (and a problem) if present but not a list.
  std::optional<std::vector<YAML::Node>> List(std::string_view key,
                                              Presence presence = Presence::kOptional);

  // Reports every key that no getter asked for.
  void Finish();

 private:
  struct Entry {
    std::string key;
    YAML::Node value;
    YAML::Mark key_mark;
    bool used = false;
  };

  const Entry* Find(std::string_view key) const;
  // Marks the key known and returns its value, or nullptr when absent (reporting it if required).
  const Entry* Take(std::string_view key, Presence presence);
  std::optional<ScalarValue> Scalar(std::string_view key, std::string_view expected,
                                    Presence presence);
  std::optional<size_t> EnumIndex(std::string_view key, const std::vector<std::string_view>& names);

  ReadContext& ctx_;
  std::string path_;
  YAML::Mark mark_;
  bool valid_ = true;  // false if the node was not a mapping (already reported)
  std::vector<Entry> entries_;
  std::vector<std::string_view> known_;  // every key asked for, present or not
};

}  // namespace rowbridge::config
