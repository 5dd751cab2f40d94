# SPDX-License-Identifier: MIT
"""gpurent.meter: the tool's invoices byte for byte, from files, dicts and DataFrames."""
import io
import json
import re
from decimal import Decimal

import pandas as pd
import pytest

import gpurent
from conftest import GOLDEN, GOLDEN_FOCUS, GOLDEN_METER, gen_usage, run_tool

EXPECTED = GOLDEN / "expected"


def golden_case(name):
    return EXPECTED / f"{name}.tariff.json", EXPECTED / f"{name}.usage.csv"


def read_usage(path):
    """A usage CSV as a DataFrame of text: the exact way to hand usage to gpurent.meter."""
    return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")


@pytest.mark.parametrize("name", GOLDEN_METER)
def test_golden_json_and_csv(name):
    tariff, usage = golden_case(name)
    inv = gpurent.meter(tariff=tariff, usage=[usage], period="2026-11")
    assert inv.to_json() == (EXPECTED / f"{name}.meter.json").read_text()
    assert inv.to_csv() == (EXPECTED / f"{name}.meter.csv").read_text()


@pytest.mark.parametrize("name", GOLDEN_FOCUS)
def test_golden_focus(name):
    tariff, usage = golden_case(name)
    assert gpurent.meter(tariff, usage, "2026-11").to_focus() == (EXPECTED / f"{name}.meter.focus.csv").read_text()


@pytest.mark.parametrize("name", GOLDEN_METER)
def test_golden_from_dataframe_dicts_and_tariff_dict(name):
    tariff, usage = golden_case(name)
    expected = (EXPECTED / f"{name}.meter.json").read_text()
    frame = read_usage(usage)
    tariff_dict = json.loads(tariff.read_text())
    assert gpurent.meter(tariff_dict, frame, "2026-11").to_json() == expected
    assert gpurent.meter(tariff, frame.to_dict("records"), "2026-11").to_json() == expected


@pytest.mark.parametrize("flags", [(), ("--labels",), ("--hostile",)])
def test_generated_usage_same_as_tool(tool, tmp_path, flags):
    tariff, usage = gen_usage(tmp_path, "gen", 20000, 38, *flags)
    for fmt in ("json", "focus", "csv"):
        want = run_tool(tool, "meter", "--tariff", tariff, "--usage", usage, "--period", "2026-11", "--jobs", "2", "--format", fmt)
        one = gpurent.meter(tariff, [usage], "2026-11", jobs=1)
        two = gpurent.meter(tariff, [usage], "2026-11", jobs=3)
        got = {"json": lambda i: i.to_json(), "focus": lambda i: i.to_focus(), "csv": lambda i: i.to_csv()}[fmt]
        assert got(one) == want and got(two) == want
    detail = run_tool(tool, "meter", "--tariff", tariff, "--usage", usage, "--period", "2026-11", "--detail")
    assert gpurent.meter(tariff, usage, "2026-11").to_json(detail=True) == detail
    frame = read_usage(usage)
    assert gpurent.meter(tariff, frame, "2026-11").to_json() == gpurent.meter(tariff, usage, "2026-11").to_json()


def test_two_files_one_stream(tool, tmp_path):
    tariff, usage = gen_usage(tmp_path, "a", 6000, 40)
    lines = usage.read_text().splitlines(keepends=True)
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    first.write_text("".join(lines[:3000]))
    second.write_text(lines[0] + "".join(lines[3000:]))
    want = run_tool(tool, "meter", "--tariff", tariff, "--usage", first, second, "--period", "2026-11")
    assert gpurent.meter(tariff, [first, second], "2026-11", jobs=2).to_json() == want


def test_amounts_are_decimal():
    tariff, usage = golden_case("example")
    inv = gpurent.meter(tariff, usage, "2026-11")
    assert inv.currency == "USD" and inv.period == "2026-11"
    assert inv.accounts and inv.lines
    for a in inv.accounts:
        for key in ("total", "credit_applied", "due"):
            assert isinstance(a[key], Decimal)
    for line in inv.lines:
        assert isinstance(line["amount"], Decimal) and not isinstance(line["amount"], float)
        assert isinstance(line["records"], int)
    assert inv.total == sum(a["total"] for a in inv.accounts)
    assert str(inv.lines[0]["amount"]) == "1137.60"  # the scale of the invoice, kept
    detail = gpurent.meter(tariff, usage, "2026-11")
    assert isinstance(detail.due, Decimal)


def test_dataframe_view_round_trip():
    tariff, usage = golden_case("hybrid")
    inv = gpurent.meter(tariff, usage, "2026-11")
    df = inv.to_pandas()
    assert list(df.columns) == ["account", "resource", "mode", "records", "billed_seconds", "amount"]
    assert len(df) == len(inv.lines)
    assert all(isinstance(v, Decimal) for v in df["amount"])
    assert df["amount"].sum() == sum(line["amount"] for line in inv.lines)
    # usage -> DataFrame -> CSV -> meter again: the same invoice.
    text = read_usage(usage).to_csv(index=False, lineterminator="\n")
    again = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert gpurent.meter(tariff, again, "2026-11").to_json() == inv.to_json()


def test_typed_columns(tmp_path):
    """Integers and datetimes in a DataFrame read as their exact text; Decimal too."""
    tariff, usage = golden_case("example")
    want = gpurent.meter(tariff, usage, "2026-11").to_json()
    frame = read_usage(usage)
    typed = frame.copy()
    typed["start"] = pd.to_datetime(frame["start"], utc=True)
    typed["end"] = pd.to_datetime(frame["end"]).dt.tz_convert("Europe/Berlin")
    typed["quantity"] = [Decimal(q) for q in frame["quantity"]]
    assert gpurent.meter(tariff, typed, "2026-11").to_json() == want
    if all(re.fullmatch(r"\d+", q) for q in frame["quantity"]):
        ints = frame.copy()
        ints["quantity"] = frame["quantity"].astype("int64")
        assert gpurent.meter(tariff, ints, "2026-11").to_json() == want


def test_jobs_give_the_same_invoice(tmp_path):
    tariff, usage = gen_usage(tmp_path, "j", 5000, 42, "--labels")
    one = gpurent.meter(tariff, usage, "2026-11", jobs=1).to_json(detail=True)
    for jobs in (2, 5):
        assert gpurent.meter(tariff, usage, "2026-11", jobs=jobs).to_json(detail=True) == one


@pytest.mark.parametrize("flags", [("--labels",), ("--hostile", "--labels")])
def test_dataframe_on_threads_is_the_one_thread_invoice(tool, tmp_path, flags):
    """Records in memory on 2 and 3 threads (several chunks of 16,384 rows per batch): the
    tool's invoice, byte for byte, as on one thread."""
    tariff, usage = gen_usage(tmp_path, "t", 70_000, 44, *flags)
    want = run_tool(tool, "meter", "--tariff", tariff, "--usage", usage, "--period", "2026-11", "--detail")
    frame = read_usage(usage)
    for jobs in (1, 2, 3):
        assert gpurent.meter(tariff, frame, "2026-11", jobs=jobs).to_json(detail=True) == want, jobs


def test_dataframe_on_threads_stops_at_the_earliest_error(tmp_path):
    """A bad row and an unreadable cell, in several orders and chunks: every thread count
    reports the error one thread reports (the earliest), naming its row."""
    tariff, usage = gen_usage(tmp_path, "e", 50_000, 45)
    frame = read_usage(usage)
    cases = {"quantity at 40,000 then a None at 45,000": [(39_999, "quantity", "x"), (44_999, "account", None)],
             "a None at 17,000 then quantity at 30,000": [(16_999, "account", None), (29_999, "quantity", "x")],
             "a float at 16,384 (a chunk's first row)": [(16_384, "quantity", 1.5)],
             "an unrated resource at 33,000": [(32_999, "resource", "gpu/nowhere")]}
    for name, bad in cases.items():
        broken = frame.copy().astype(object)
        for row, column, value in bad:
            broken.at[row, column] = value
        seen = []
        for jobs in (1, 2, 3):
            with pytest.raises(gpurent.Error) as e:
                gpurent.meter(tariff, broken, "2026-11", jobs=jobs)
            seen.append((str(e.value), e.value.line, e.value.field))
        assert seen[0] == seen[1] == seen[2], (name, seen)
        assert seen[0][1] == bad[0][0] + 1 and seen[0][2] == bad[0][1], (name, seen)
