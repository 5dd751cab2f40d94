# SPDX-License-Identifier: MIT
"""`python -m gpurent report fleet|invoice|idle ...`: the HTML reports of docs/reports.md.

Exit statuses as the tool's: 0 the report was written; 2 invalid input or options, the file
and the reason on stderr (--out naming an input among them: nothing is written); 4 the report
could not be written.
"""
from __future__ import annotations

import argparse
import os
import sys


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m gpurent", description="gpurent from Python")
    commands = top.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="a self-contained HTML report of the tool's output files")
    kinds = report.add_subparsers(dest="kind", required=True)
    fleet = kinds.add_parser("fleet", help="a `gpurent fleet run`")
    fleet.add_argument("--summary", required=True, help="its JSON (stdout)")
    fleet.add_argument("--timeline", required=True, help="its --timeline CSV")
    fleet.add_argument("--jobs", required=True, help="its --jobs-out CSV")
    fleet.add_argument("--placements", help="its --placements CSV: evictions over time")
    fleet.add_argument("--topology", help="the topology JSON it ran on: the placement on blocks (with --placements)")
    invoice = kinds.add_parser("invoice", help="a `gpurent meter --format json` invoice (--detail: billed vs used)")
    invoice.add_argument("--invoice", required=True)
    idle = kinds.add_parser("idle", help="a `gpurent idle --format json` report")
    idle.add_argument("--idle", required=True)
    idle.add_argument("--metrics", help="the metrics file it read: utilization in the heat map")
    idle.add_argument("--metric", default="DCGM_FI_DEV_GPU_UTIL", help="as given to gpurent idle")
    for sub in (fleet, invoice, idle):
        sub.add_argument("--out", required=True, help="the HTML file to write")
    return top


def fleet_report(args, r) -> None:
    run = r.load_fleet_run(args.summary, args.timeline, args.jobs)
    paths = {"placements": args.placements, "topology": args.topology}
    if args.topology and not args.placements:
        raise r.ReportInputError(args.topology, "--topology needs --placements")
    placements = r.load_placements(args.placements) if args.placements else None
    blocks = r.load_topology(args.topology) if args.topology else None
    inputs = {**run.inputs, **r.load.digests({k: v for k, v in paths.items() if v})}
    r.write_fleet_report(args.out, run.summary, run.timeline, run.jobs, inputs,
                         placements=placements, blocks=blocks)


def idle_report(args, r) -> None:
    idle = r.load_idle(args.idle)
    samples = r.load_metrics(args.metrics, args.metric) if args.metrics else None
    paths = {"idle": args.idle, **({"metrics": args.metrics} if args.metrics else {})}
    r.write_idle_report(args.out, idle, r.load.digests(paths), samples)


def run(args) -> None:
    import gpurent.report as r  # after argument parsing: --help needs no matplotlib
    if args.kind == "fleet":
        fleet_report(args, r)
    elif args.kind == "invoice":
        r.write_invoice_report(args.out, r.load_invoice(args.invoice), r.load.digests({"invoice": args.invoice}))
    else:
        idle_report(args, r)


def same_file(a: str, b: str) -> bool:
    """One file: the same path once made absolute and resolved, or the same file by a link."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def overwritten_input(args) -> str | None:
    """The message when --out names one of the inputs (it would be written over), as the
    tool refuses an output that names an input; None when it names none."""
    for name, value in vars(args).items():
        if name not in ("command", "kind", "out", "metric") and value and same_file(args.out, value):
            return f"--out names the same file as --{name} ({args.out}): the output would overwrite the input"
    return None


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    from gpurent.report.load import ReportInputError
    inputs = ", ".join(v for k, v in vars(args).items() if k not in ("command", "kind", "out", "metric") and v)
    if clash := overwritten_input(args):
        print(f"gpurent report: {clash}", file=sys.stderr)
        return 2
    try:
        run(args)
    except ReportInputError as e:
        print(f"gpurent report: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        # A file of the right shape whose content does not fit the documented format.
        print(f"gpurent report: {inputs}: not the tool's format ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"gpurent report: {args.out}: cannot be written: {e.strerror or e}", file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
