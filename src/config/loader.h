// Loads and validates the YAML config file (docs/configuration.md describes every key).
//
// The loader reports EVERY problem of a file at once: unknown keys (with "did you mean"), wrong
// types, values out of range, bad enum values, bad table patterns, rules that can never match,
// contradicting settings and missing required keys. Each problem names the key path and the
// line:column, and all of them are thrown together as one Error(kConfig):
//
//   rowbridge.yaml: 2 configuration problems:
//     rowbridge.yaml:3:9: source.port: expected an integer from 1 to 65535, got "33o6"
//     rowbridge.yaml:9:3: target.compresion: unknown key (did you mean compression?)
//
// ${VAR} and ${VAR:-default} in any value are replaced from the environment first
// (config/env_substitution.h), so numbers, sizes and durations may come from there too. A YAML
// syntax error is reported alone (nothing after it can be read). Any input yields a Config or an
// Error(kConfig); no other exception escapes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "config/env_substitution.h"

namespace rowbridge::config {

struct LoadOptions {
  EnvLookup env = ProcessEnvironment();
  // Relative file paths in the config (state.path, tls ca/cert/key) are resolved against this
  // directory. LoadConfigFile sets it to the file's directory when empty.
  std::string base_directory;
  // If set, receives advice that does not make the config invalid (rules that overlap partly),
  // rendered like problems: "name:line:column: path: message".
  std::vector<std::string>* warnings = nullptr;
  // The config file's permission bits (LoadConfigFile sets them): a file others may read that
  // holds a password or token as text gets a warning.
  uint32_t file_mode = 0;
};

// `source_name` names the text in messages (usually the file name).
Config ParseConfig(std::string_view yaml, std::string_view source_name,
                   const LoadOptions& options = {});

// Reads the file (Error(kIo) if it cannot be read) and parses it.
Config LoadConfigFile(const std::string& path, LoadOptions options = {});

}  // namespace rowbridge::config
