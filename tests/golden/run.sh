#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden outputs of the gpurent tool, recorded before the one-billing-engine refactor
# (issue 15) and kept as regression tests: every command here must print byte for byte what
# tests/golden/expected/ holds.
#
#   tests/golden/run.sh TOOL OUTDIR     writes every output into OUTDIR
#   tests/golden/run.sh TOOL --check    writes them into a scratch folder and diffs them
#                                       against tests/golden/expected (exit 1 on a difference)
#
# Replay JSON carries wall-clock fields (elapsed_s, placements_per_s); they are dropped here.
# The Alibaba trace replays run only when ../shared/data holds the trace, and are compared
# as SHA-256 digests (the trace's terms forbid redistributing it, and its derived rows too).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tool="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; out="$2"
check=0
if [ "$out" = "--check" ]; then check=1; out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT; fi
mkdir -p "$out"; out="$(cd "$out" && pwd)"
in="$here/inputs"
offers_example="$root/examples/plan/offers.json"

# plan NAME [plan args...]: JSON, table, emitted usage and tariff, and the meter on them.
plan() {
  local name="$1"; shift
  "$tool" plan "$@" --format json >"$out/$name.plan.json"
  "$tool" plan "$@" --format table >"$out/$name.plan.txt"
  "$tool" plan "$@" --emit-usage "$out/$name.usage.csv" --emit-tariff "$out/$name.tariff.json" >/dev/null
  local period; period=$(sed -n 's/^  "period": "\(.*\)",$/\1/p' "$out/$name.plan.json")
  for f in json csv table; do
    "$tool" meter --tariff "$out/$name.tariff.json" --usage "$out/$name.usage.csv" --period "$period" --format "$f" >"$out/$name.meter.$f"
  done
}
plan example
plan tiers --workload "$in/workload-tiers.json" --offers "$in/offers-tiers.json"
plan packing --workload "$in/workload-packing.json" --offers "$offers_example"
plan hybrid --workload "$root/examples/plan/hybrid-workload.json" --offers "$root/examples/plan/hybrid-offers.json"
# The FOCUS 1.0 invoice (docs/focus.md) of three of them: reserved, tiered and hybrid rates.
for name in example tiers hybrid; do
  period=$(sed -n 's/^  "period": "\(.*\)",$/\1/p' "$out/$name.plan.json")
  "$tool" meter --tariff "$out/$name.tariff.json" --usage "$out/$name.usage.csv" --period "$period" --format focus >"$out/$name.meter.focus.csv"
done

# A plan over its budget (docs/planning.md, "Budgets and caps"): exit 3, the message on
# stderr (with the exit status) and the report as JSON on stdout.
over_budget() {  # over_budget NAME [plan args...]
  local name="$1"; shift
  local status=0
  "$tool" plan "$@" --format json >"$out/$name.budget.json" 2>"$out/$name.budget.err" || status=$?
  printf 'exit %s\n' "$status" >>"$out/$name.budget.err"
}
over_budget budget --workload "$root/examples/plan/budget-workload.json" --offers "$root/examples/plan/hybrid-offers.json"

# replay NAME NODES PODS POLICY
replay() {
  "$tool" replay --nodes "$2" --pods "$3" --policy "$4" --seed 7 --placements "$out/$1.placements.csv" \
    | grep -v -e '"elapsed_s"' -e '"placements_per_s"' >"$out/$1.replay.json"
}
for policy in best-fit gpurent; do replay "small-$policy" "$in/nodes.csv" "$in/pods.csv" "$policy"; done

# Bad input: the exit status and the message, from inside inputs/bad so that the messages
# name the files as the user typed them.
bad() {  # bad NAME ARGS...: writes NAME.err as "exit N" and the tool's stderr
  local name="$1"; shift
  local status=0
  (cd "$in/bad" && "$tool" "$@" >"$out/$name.stdout" 2>"$out/$name.err") || status=$?
  [ -s "$out/$name.stdout" ] && echo "golden: $name printed on stdout" >"$out/$name.err.stdout"
  rm -f "$out/$name.stdout"
  printf 'exit %s\n' "$status" >>"$out/$name.err"
}
for f in "$in"/bad/offers-*.json; do b="$(basename "$f" .json)"; bad "bad-$b" plan --offers "$b.json"; done
for f in "$in"/bad/workload-*.json; do b="$(basename "$f" .json)"; bad "bad-$b" plan --workload "$b.json"; done
for f in "$in"/bad/tariff-*.json; do
  b="$(basename "$f" .json)"
  [ "$b" = tariff-ok ] || bad "bad-$b" meter --tariff "$b.json" --usage usage-order.csv --period 2026-11
done
for f in "$in"/bad/usage-*.csv; do b="$(basename "$f" .csv)"; bad "bad-$b" meter --tariff tariff-ok.json --usage "$b.csv" --period 2026-11; done
bad bad-meter-period meter --tariff tariff-ok.json --usage usage-order.csv --period 2026-1
bad bad-meter-previous meter --tariff tariff-ok.json --usage usage-order.csv --period 2026-11 --previous previous-month.json

# offers import (docs/offers-import.md): gpuhunt CSVs (CRLF, a byte-order mark, quoted fields, a
# terms file) and a SkyPilot vms.csv, run inside inputs/import so that the offers' sources name
# the files as typed; the report on stderr is kept too. Then bad rows (exit 2) and an output
# that cannot be written (exit 4).
import_case() {  # import_case NAME ARGS...
  local name="$1"; shift
  (cd "$in/import" && "$tool" offers import "$@" --seen 2026-12-06T00:00:00Z >"$out/$name.json" 2>"$out/$name.err")
}
import_case import-gpuhunt --from gpuhunt aws.csv lambdalabs.csv --terms terms.json
import_case import-skypilot --from skypilot vms.csv --provider aws
# The imported catalog planned as it is: its A10G, which the GPU catalog cannot map, is set aside
# and reported, not an error.
plan imported --workload "$in/import/workload.json" --offers "$out/import-gpuhunt.json"
for b in import-price import-row; do bad "bad-$b" offers import --from gpuhunt "$b.csv" --seen 2026-12-06T00:00:00Z; done
bad bad-import-out offers import --from gpuhunt import-ok.csv --seen 2026-12-06T00:00:00Z --out no-such-dir/offers.json

trace="$root/../shared/data/alibaba-gpu-v2023"
if [ -f "$trace/openb_pod_list_default.csv" ]; then
  for policy in best-fit gpurent; do
    replay "trace-$policy" "$trace/openb_node_list_gpu_node.csv" "$trace/openb_pod_list_default.csv" "$policy"
  done
  (cd "$out" && sha256sum trace-* >trace.sha256 && rm -f trace-*)
else
  echo "golden: the Alibaba trace is not in ../shared/data: its replays are skipped" >&2
fi

if [ "$check" = 1 ]; then
  status=0
  for f in "$here"/expected/*; do
    b="$(basename "$f")"
    if [ "$b" = trace.sha256 ] && [ ! -f "$out/trace.sha256" ]; then continue; fi
    if ! cmp -s "$f" "$out/$b"; then
      echo "golden: $b differs from tests/golden/expected/$b" >&2
      diff -u "$f" "$out/$b" | head -40 >&2 || true
      status=1
    fi
  done
  for f in "$out"/*; do
    [ -e "$here/expected/$(basename "$f")" ] || { echo "golden: $(basename "$f") has no expected file" >&2; status=1; }
  done
  [ "$status" = 0 ] && echo "golden: $(ls "$here/expected" | wc -l) outputs identical"
  exit "$status"
fi
