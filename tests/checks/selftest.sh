#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The code-shape checks catch what they are for: scripts/check-layers fails on a header that
# includes a layer above its own (naming file and line) and passes on this checkout;
# scripts/check-functions fails on a 71-line function and passes on a 70-line one;
# scripts/check-sizes fails on a 301-line class and a 451-line header, passes on 300 and 450,
# holds an allow-listed one to its size (grown: fails; gone: fails) and passes on this checkout.
# One deliberately bad tree (a class and a header too big, a layer-order violation) fails both.
# scripts/check-include-cost passes on this checkout and on an umbrella within its budget, and
# fails, naming it, on one whose preprocessed text outgrew its budget or that has none.
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

expect 0 "check-include-cost passes on this checkout" "$root/scripts/check-include-cost" "$root"
mkdir -p "$scratch/inc/include/gpurent/core"
printf '#pragma once\nint money_a;\nint money_b;\n' >"$scratch/inc/include/gpurent/core/core.hpp"
printf '# budget\ngpurent/core/core.hpp 3 40\n' >"$scratch/inc/budget"
expect 0 "check-include-cost passes an umbrella within its budget" "$root/scripts/check-include-cost" "$scratch/inc" --budget "$scratch/inc/budget"
printf 'int money_c;\n' >>"$scratch/inc/include/gpurent/core/core.hpp"
expect 1 "check-include-cost fails an umbrella over its budget" "$root/scripts/check-include-cost" "$scratch/inc" --budget "$scratch/inc/budget"
grep -q "^gpurent/core/core.hpp: 4 lines, 47 bytes preprocessed: over its budget of 3 lines, 40 bytes$" "$scratch/err" ||
  { echo "FAIL: check-include-cost does not name gpurent/core/core.hpp and its figures" >&2; status=1; }
mkdir -p "$scratch/inc/include/gpurent/spec"
printf '#pragma once\n' >"$scratch/inc/include/gpurent/spec/spec.hpp"
printf 'gpurent/core/core.hpp 4 60\n' >"$scratch/inc/budget"
expect 1 "check-include-cost fails an umbrella without a budget" "$root/scripts/check-include-cost" "$scratch/inc" --budget "$scratch/inc/budget"
grep -q "^gpurent/spec/spec.hpp: has no budget in" "$scratch/err" || { echo "FAIL: check-include-cost does not name the umbrella without a budget" >&2; status=1; }

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

  cls() {  # cls DIR LINES: a tools/c.cpp whose one struct, big, spans LINES lines
    mkdir -p "$1/tools"
    { echo "struct big {"; for ((i = 0; i < $2 - 2; ++i)); do echo "  int v$i = $i;"; done; echo "};"; } >"$1/tools/c.cpp"
  }
  hdr() {  # hdr DIR LINES: an include/gpurent/core/h.hpp of LINES lines
    mkdir -p "$1/include/gpurent/core"
    { echo "#pragma once"; for ((i = 0; i < $2 - 1; ++i)); do echo "// line $i"; done; } >"$1/include/gpurent/core/h.hpp"
  }
  expect 0 "check-sizes passes on this checkout (its allow-list included)" "$root/scripts/check-sizes" "$root"
  cls "$scratch/s300" 300; hdr "$scratch/s300" 450
  expect 0 "check-sizes passes a 300-line class and a 450-line header" "$root/scripts/check-sizes" "$scratch/s300"
  cls "$scratch/s301" 301; hdr "$scratch/s301" 451
  expect 1 "check-sizes fails a 301-line class and a 451-line header" "$root/scripts/check-sizes" "$scratch/s301"
  grep -q "^include/gpurent/core/h.hpp (451 lines)$" "$scratch/err" && grep -q "^tools/c.cpp:1 big (301 lines)$" "$scratch/err" ||
    { echo "FAIL: check-sizes does not name include/gpurent/core/h.hpp (451 lines) and tools/c.cpp:1 big (301 lines)" >&2; status=1; }
  [ "$(grep -n "h.hpp (451" "$scratch/err" | cut -d: -f1)" -lt "$(grep -n "big (301" "$scratch/err" | cut -d: -f1)" ] ||
    { echo "FAIL: check-sizes does not list the largest first" >&2; status=1; }

  # The allow-list: an entry holds its class or header to the size it lists.
  printf '# split soon\ntools/c.cpp big 301\ninclude/gpurent/core/h.hpp 451  # the header\n' >"$scratch/allow"
  expect 0 "check-sizes passes what the allow-list holds at its size" "$root/scripts/check-sizes" "$scratch/s301" --allow "$scratch/allow"
  grep -q "tools/c.cpp:1 big (301 of 301 lines allowed)" "$scratch/out" || { echo "FAIL: check-sizes does not print what is still allow-listed" >&2; status=1; }
  cls "$scratch/s301" 302
  expect 1 "check-sizes fails an allow-listed class that grew" "$root/scripts/check-sizes" "$scratch/s301" --allow "$scratch/allow"
  grep -q "tools/c.cpp:1 big (302 lines): grew past the 301 lines allow:2 allows" "$scratch/err" ||
    { echo "FAIL: check-sizes does not name the allow-listed class that grew" >&2; status=1; }
  cls "$scratch/s301" 200
  expect 1 "check-sizes fails an allow-list entry that is no longer over its limit" "$root/scripts/check-sizes" "$scratch/s301" --allow "$scratch/allow"
  grep -q "allow:2: tools/c.cpp big is no longer over its limit" "$scratch/err" ||
    { echo "FAIL: check-sizes does not ask for the stale allow-list entry to go" >&2; status=1; }
  echo "tools/c.cpp big" >"$scratch/allow"
  expect 1 "check-sizes fails on an allow-list line without a size" "$root/scripts/check-sizes" "$scratch/s301" --allow "$scratch/allow"

  # One bad tree, three offenses: each check names its own.
  mkdir -p "$scratch/worst/include/gpurent/spec" "$scratch/worst/docs"
  cls "$scratch/worst" 400; hdr "$scratch/worst" 500
  printf '#pragma once\n#include <gpurent/fleet/run/run.hpp>\n' >"$scratch/worst/include/gpurent/spec/s.hpp"
  printf -- '- `gpurent/core/h.hpp`\n- `gpurent/spec/s.hpp`\n' >"$scratch/worst/docs/architecture.md"
  expect 1 "check-sizes fails on the bad tree" "$root/scripts/check-sizes" "$scratch/worst"
  grep -q "tools/c.cpp:1 big (400 lines)" "$scratch/err" && grep -q "include/gpurent/core/h.hpp (500 lines)" "$scratch/err" ||
    { echo "FAIL: check-sizes does not name the bad tree's class and header" >&2; status=1; }
  expect 1 "check-layers fails on the bad tree" "$root/scripts/check-layers" "$scratch/worst"
  grep -q "spec/s.hpp:2: spec includes fleet" "$scratch/err" || { echo "FAIL: check-layers does not name spec/s.hpp:2" >&2; status=1; }
else
  echo "skipped: ctags is missing (apt-get install universal-ctags)"
fi
exit "$status"
