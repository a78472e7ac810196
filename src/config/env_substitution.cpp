#include "config/env_substitution.h"

#include <cstdlib>

#include "common/error.h"

namespace rowbridge::config {
namespace {

bool IsNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9');
}

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

Substituted SubstituteEnvironment(std::string_view text, const EnvLookup& lookup, Echo echo) {
  Substituted out;
  out.value.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t dollar = text.find('$', pos);
    if (dollar == std::string_view::npos) {
      out.value.append(text.substr(pos));
      break;
    }
    out.value.append(text.substr(pos, dollar - pos));
    // "$${" is an escaped "${".
    if (text.substr(dollar, 3) == "$${") {
      out.value.append("${");
      pos = dollar + 3;
      continue;
    }
    if (text.substr(dollar, 2) != "${") {
      out.value.push_back('$');
      pos = dollar + 1;
      continue;
    }
    size_t close = text.find('}', dollar + 2);
    if (close == std::string_view::npos) {
      Fail(ErrorCode::kInvalidArgument,
           "\"${{\" at character {} has no closing \"}}\" (write \"$${{\" for a literal \"${{\")",
           dollar + 1);
    }
    std::string_view body = text.substr(dollar + 2, close - dollar - 2);
    size_t name_end = 0;
    while (name_end < body.size() && IsNameChar(body[name_end])) ++name_end;
    std::string name(body.substr(0, name_end));
    // A secret's malformed reference is named by position only: its text is the secret's.
    auto malformed = [&](const std::string& described) {
      if (echo == Echo::kNothing) {
        Fail(ErrorCode::kInvalidArgument,
             "a \"${{...}}\" at character {} is not a valid variable reference (the value is a "
             "secret and is not shown); write a literal \"${{\" as \"$${{\"",
             dollar + 1);
      }
      Fail(ErrorCode::kInvalidArgument, "{}", described);
    };
    if (name.empty() || !IsNameStart(name[0])) {
      malformed(fmt::format(
          "\"${{{}}}\" is not a valid variable reference (names are letters, digits and _, not "
          "starting with a digit)",
          body));
    }
    std::optional<std::string_view> fallback;
    if (name_end < body.size()) {
      if (body.substr(name_end, 2) != ":-") {
        malformed(fmt::format(
            "\"${{{}}}\" is not a valid variable reference (use ${{{}}} or ${{{}:-default}})", body,
            name, name));
      }
      fallback = body.substr(name_end + 2);
    }
    std::optional<std::string> value = lookup(name);
    if (fallback.has_value() && (!value.has_value() || value->empty())) {
      out.value.append(*fallback);
    } else if (value.has_value()) {
      out.value.append(*value);
      out.from_environment = true;
    } else if (name == "db" || name == "table") {
      // Most likely a target placeholder written with a dollar sign.
      Fail(ErrorCode::kInvalidArgument,
           "environment variable {} is not set (the placeholders in a table rule's target are "
           "written {{{}}}, without $)",
           name, name);
    } else {
      Fail(ErrorCode::kInvalidArgument,
           "environment variable {} is not set (set it, or give a default: ${{{}:-default}})", name,
           name);
    }
    pos = close + 1;
  }
  return out;
}

}  // namespace rowbridge::config
