// ${VAR} substitution in config values, so that secrets live in the environment and never in the
// file.
//
//   ${NAME}            the value of NAME; an error if NAME is unset
//   ${NAME:-fallback}  the value of NAME, or `fallback` if NAME is unset or empty
//   $${                a literal "${" (so "$${HOME}" yields "${HOME}")
//
// NAME is [A-Za-z_][A-Za-z0-9_]*. A "$" not followed by "{" is kept as is, so passwords such as
// "pa$$word" need no escaping. The fallback is taken literally (it is not substituted again) and
// may not contain "}". Values taken from the environment are not scanned again either.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace rowbridge::config {

// Looks a variable up; nullopt if it is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The real process environment (getenv).
EnvLookup ProcessEnvironment();

struct Substituted {
  std::string value;
  // True if any part of `value` came from the environment (not from a fallback or the text), so
  // error messages must not echo `value`.
  bool from_environment = false;
};

// What an error may quote of `text`: kReferences shows a malformed reference ("${1X}"); kNothing,
// for secrets, shows only where it is, since a "${" in a password may be part of the password. A
// well-formed reference's variable name is shown either way: it is what the user wrote to refer to
// the environment.
enum class Echo { kReferences, kNothing };

// Throws Error(kInvalidArgument) naming the variable for an unset variable without fallback, and
// describing the problem for malformed references ("${", "${1X}", "${X:-a" ...).
Substituted SubstituteEnvironment(std::string_view text, const EnvLookup& lookup,
                                  Echo echo = Echo::kReferences);

}  // namespace rowbridge::config
