#!/usr/bin/env bash
# Lists the functions of src/ longer than a limit (docs/architecture.md: functions under ~80
# lines), longest first, as "LINES FILE:LINE NAME". A tool for finding what to split, not a check:
# it always exits 0 and no build or CI step runs it. Lengths are ctags' (universal-ctags: a
# definition's first line to its closing brace), lambdas count toward the function holding them.
#
#   scripts/check-function-length.sh [LIMIT] [PATH...]   default: 80, src
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
limit="${1:-80}"
shift || true
(($#)) || set -- src
command -v ctags >/dev/null || { echo "check-function-length: ctags not found" >&2; exit 2; }
# A lambda is a function of its own to ctags (a name starting with __anon): left out, as its
# lines are its enclosing function's already.
ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x \
  --_xformat='%{end} %{line} %{input} %{scope}::%{name}' -f - "$@" 2>/dev/null |
  awk -v limit="$limit" '
    $1 ~ /^[0-9]+$/ && $4 !~ /::__anon[0-9a-f]+$/ {
      name = $4; sub(/^::/, "", name); gsub(/__anon[0-9a-f]+/, "(anonymous)", name)
      sub(/^rowbridge::/, "", name)
      n = $1 - $2 + 1
      if (n > limit) printf "%5d %s:%s %s\n", n, $3, $2, name
    }' |
  sort -rn
