#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The code-shape checks catch what they are for: scripts/check-layers fails on a header that
# includes a layer above its own (naming file and line) and passes on this checkout;
# scripts/check-functions fails on a 71-line function and passes on a 70-line one.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scratch="$(mktemp -d)"; trap 'rm -rf "$scratch"' EXIT
status=0
expect() {  # expect CODE WHAT COMMAND...: the command must exit with CODE
  local want="$1" what="$2"; shift 2
  "$@" >"$scratch/out" 2>"$scratch/err"; local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL: $what: exit $got, expected $want" >&2; cat "$scratch/err" >&2; status=1; else echo "ok: $what"; fi
}

expect 0 "check-layers passes on this checkout" "$root/scripts/check-layers" "$root"
mkdir -p "$scratch/bad/include/gpurent/core" "$scratch/bad/include/gpurent/planning" "$scratch/bad/docs"
printf -- '- `gpurent/core/a.hpp`\n- `gpurent/planning/planner.hpp`\n' >"$scratch/bad/docs/architecture.md"
printf '#pragma once\n// a core header\n#include <gpurent/planning/planner.hpp>\n' >"$scratch/bad/include/gpurent/core/a.hpp"
printf '#pragma once\n#include <gpurent/core/a.hpp>\n' >"$scratch/bad/include/gpurent/planning/planner.hpp"
expect 1 "check-layers fails when core includes planning" "$root/scripts/check-layers" "$scratch/bad"
grep -q "core/a.hpp:3: core includes planning" "$scratch/err" || { echo "FAIL: check-layers does not name core/a.hpp:3" >&2; status=1; }
mkdir -p "$scratch/bad/include/gpurent/cloud"
printf '#pragma once\n' >"$scratch/bad/include/gpurent/cloud/x.hpp"
expect 1 "check-layers fails on a folder outside the layer order" "$root/scripts/check-layers" "$scratch/bad"
rm -r "$scratch/bad/include/gpurent/cloud"
sed -i 's|planning/planner.hpp|planning/plan.hpp|' "$scratch/bad/docs/architecture.md"
printf '#pragma once\n' >"$scratch/bad/include/gpurent/core/a.hpp"
expect 1 "check-layers fails when docs/architecture.md misses a header or names a gone one" "$root/scripts/check-layers" "$scratch/bad"
grep -q "does not name gpurent/planning/planner.hpp" "$scratch/err" && grep -q "names gpurent/planning/plan.hpp, which is not a header" "$scratch/err" ||
  { echo "FAIL: check-layers does not name the map's missing and stale headers" >&2; status=1; }

if command -v ctags >/dev/null; then
  fn() {  # fn DIR LINES: a tools/f.cpp whose one function spans LINES lines
    mkdir -p "$1/tools"
    { echo "int f() {"; for ((i = 0; i < $2 - 2; ++i)); do echo "  int v$i = $i;"; done; echo "}"; } >"$1/tools/f.cpp"
  }
  fn "$scratch/f70" 70
  fn "$scratch/f71" 71
  expect 0 "check-functions passes a 70-line function" "$root/scripts/check-functions" "$scratch/f70"
  expect 1 "check-functions fails a 71-line function" "$root/scripts/check-functions" "$scratch/f71"
  grep -q "tools/f.cpp:1 f (71 lines)" "$scratch/err" || { echo "FAIL: check-functions does not name tools/f.cpp:1" >&2; status=1; }
else
  echo "skipped: ctags is missing (apt-get install universal-ctags)"
fi
exit "$status"
