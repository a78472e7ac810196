#!/usr/bin/env bash
# Fails (exit 1) when a C++ file in src/ tests/ tools/ bench/ is not formatted as .clang-format
# says, and names each such file. Checks the files git tracks and the untracked ones it does not
# ignore, so a new file is checked before it is committed.
#
#   scripts/check-format.sh          check
#   scripts/check-format.sh --fix    reformat the offending files in place
#
# Uses clang-format-14 (Debian 12's; CLANG_FORMAT overrides): other versions format some
# constructs differently, so one version is the reference.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

CLANG_FORMAT="${CLANG_FORMAT:-clang-format-14}"
command -v "$CLANG_FORMAT" >/dev/null ||
  { echo "check-format: $CLANG_FORMAT not found (apt-get install clang-format-14)" >&2; exit 2; }

fix=0
case "${1:-}" in
  --fix) fix=1 ;;
  "") ;;
  *) echo "usage: $0 [--fix]" >&2; exit 2 ;;
esac

mapfile -t files < <(git ls-files --cached --others --exclude-standard -- src tests tools bench |
  grep -E '\.(h|hpp|cc|cpp)$' | sort -u | while IFS= read -r f; do [[ -f "$f" ]] && echo "$f"; done)

# One clang-format process for all files (a process per file is slow on a busy machine); each
# difference it reports starts with "FILE:LINE:COL: error:". Anything else it says non-zero about
# (a broken .clang-format, an unreadable file) fails the check too.
bad=()
if ((${#files[@]})); then
  report="$(mktemp)"
  trap 'rm -f "$report"' EXIT
  rc=0
  printf '%s\0' "${files[@]}" |
    xargs -0 "$CLANG_FORMAT" --style=file --dry-run --Werror >/dev/null 2>"$report" || rc=$?
  mapfile -t bad < <(sed -nE 's/^(.+):[0-9]+:[0-9]+: (error|warning): .*/\1/p' "$report" | sort -u)
  if ((rc != 0 && ${#bad[@]} == 0)); then
    echo "check-format: $CLANG_FORMAT failed (status $rc):" >&2
    cat "$report" >&2
    exit 2
  fi
fi

if ((${#bad[@]} == 0)); then
  echo "check-format: ${#files[@]} files formatted as .clang-format says"
  exit 0
fi
if ((fix)); then
  "$CLANG_FORMAT" --style=file -i "${bad[@]}"
  echo "check-format: reformatted ${#bad[@]} files:"
  printf '  %s\n' "${bad[@]}"
  exit 0
fi
echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format says:"
printf '  %s\n' "${bad[@]}"
echo "fix with: scripts/check-format.sh --fix   (or $CLANG_FORMAT -i FILE...)"
exit 1
