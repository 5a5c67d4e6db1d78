#!/usr/bin/env bash
# The style check of CI: every tracked C, C++ and CUDA source must be as
# clang-format (Debian 12's, version 14) leaves it under .clang-format.
#
#   scripts/format-check.sh          # check; lists the files that differ, exit 1
#   scripts/format-check.sh --fix    # rewrite them in place
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v clang-format >/dev/null || { echo "[format] clang-format not found (scripts/setup.sh installs it)" >&2; exit 1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh' ':!:tests/oracles/**')
else  # a source tree without git: the same folders
  mapfile -t files < <(find src dag codelets cuda policies tests bench -path tests/oracles -prune -o -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print | sort)
fi
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf '[format] not in the style of .clang-format (scripts/format-check.sh --fix):\n' >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "[format] ${#files[@]} sources in style"
