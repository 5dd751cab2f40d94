#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python package's metering against the tool's, on the same records (docs/performance.md).

    python bench/python_meter.py TOOL [--records 1000000] [--seed 1] [--jobs 1] [--repeat 3]

Writes scripts/gen-usage's tariff and usage (--records), then times, best of --repeat:
the tool (`gpurent meter --jobs J --format json`, the process from start to exit), and
gpurent.meter on the same file and on a pandas DataFrame of the same records (read with
dtype=str beforehand, not timed: the DataFrame is what the caller has in hand), each asked
for the invoice JSON. Every invoice must be the tool's, byte for byte. Run it with the
interpreter that has the package installed (scripts/check-python's BUILD/py-venv).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import pandas as pd

import gpurent

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best(repeat, f):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tariff, usage = os.path.join(d, "t.json"), os.path.join(d, "u.csv")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-usage"), "--records", str(a.records), "--seed", str(a.seed),
                        "--tariff", tariff, "--usage", usage], check=True)
        cmd = [a.tool, "meter", "--tariff", tariff, "--usage", usage, "--period", "2026-11", "--jobs", str(a.jobs)]
        tool_s, want = best(a.repeat, lambda: subprocess.run(cmd, check=True, capture_output=True).stdout.decode())
        files_s, files = best(a.repeat, lambda: gpurent.meter(tariff, [usage], "2026-11", jobs=a.jobs).to_json())
        frame = pd.read_csv(usage, dtype=str, keep_default_na=False)
        frame_s, framed = best(a.repeat, lambda: gpurent.meter(tariff, frame, "2026-11", jobs=a.jobs).to_json())
    assert files == want and framed == want, "an invoice differs from the tool's"
    print(f"records {a.records}, jobs {a.jobs}, best of {a.repeat}; every invoice the tool's, byte for byte")
    print(f"tool (gpurent meter)          {tool_s:7.3f} s  1.00")
    print(f"gpurent.meter(usage files)    {files_s:7.3f} s  {files_s / tool_s:.2f}")
    print(f"gpurent.meter(DataFrame)      {frame_s:7.3f} s  {frame_s / tool_s:.2f}")


if __name__ == "__main__":
    main()
