# SPDX-License-Identifier: MIT
"""Bad input raises gpurent.Error (a ValueError) with the library's message, file, line and
field; wrong types raise TypeError; nothing crashes."""
import json
from pathlib import Path

import pandas as pd
import pytest

import gpurent
from conftest import GOLDEN

BAD = GOLDEN / "inputs" / "bad"


def expected_message(name):
    """The tool's message for a golden bad case, without "gpurent: " and the exit line."""
    first = (GOLDEN / "expected" / f"{name}.err").read_text().splitlines()[0]
    return first.removeprefix("gpurent: ")


@pytest.mark.parametrize("case", sorted(p.stem for p in BAD.glob("usage-*.csv")))
def test_bad_usage_files_as_the_tool_says(case, monkeypatch):
    monkeypatch.chdir(BAD)
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter("tariff-ok.json", [f"{case}.csv"], "2026-11")
    assert str(e.value) == expected_message(f"bad-{case}")
    assert e.value.file == f"{case}.csv" and isinstance(e.value.line, int) and e.value.field
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("case", sorted(p.stem for p in BAD.glob("tariff-*.json") if p.stem != "tariff-ok"))
def test_bad_tariffs_as_the_tool_says(case, monkeypatch):
    monkeypatch.chdir(BAD)
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(f"{case}.json", ["usage-order.csv"], "2026-11")
    assert str(e.value) == expected_message(f"bad-{case}")


def test_error_attributes():
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(BAD / "tariff-ok.json", [BAD / "usage-quantity.csv"], "2026-11")
    err = e.value
    assert err.file.endswith("usage-quantity.csv") and err.line == 3 and err.field == "quantity"
    assert err.code == "parse_error" and err.message == "more than one '.' in \"1.5.0\""


def test_bad_period():
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(BAD / "tariff-ok.json", [BAD / "usage-order.csv"], "2026-1")
    assert e.value.field == "period" and "not a month" in str(e.value)


def test_missing_files():
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(BAD / "no-such-tariff.json", [BAD / "usage-order.csv"], "2026-11")
    assert "no-such-tariff.json" in str(e.value)
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(BAD / "tariff-ok.json", [BAD / "no-such-usage.csv"], "2026-11")
    assert "no-such-usage.csv" in str(e.value)
    with pytest.raises(gpurent.Error):
        gpurent.meter(BAD / "tariff-ok.json", [], "2026-11")


def test_bad_records_name_their_row_and_field():
    tariff = BAD / "tariff-ok.json"
    frame = pd.read_csv(BAD / "usage-quantity.csv", dtype=str, keep_default_na=False)
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(tariff, frame, "2026-11")
    assert e.value.file == "<records>" and e.value.line == 2 and e.value.field == "quantity"
    assert e.value.message == "more than one '.' in \"1.5.0\""
    rows = frame.to_dict("records")
    rows[0]["account"] = None
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(tariff, rows, "2026-11")
    assert e.value.line == 1 and e.value.field == "account"
    floats = frame.assign(quantity=frame["quantity"].map(lambda q: 1.5))  # float64: inexact
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(tariff, floats, "2026-11")
    assert e.value.field == "quantity" and "float" in str(e.value)
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(tariff, frame.drop(columns=["mode"]), "2026-11")
    assert e.value.field == "mode"


def test_bad_tariff_dict():
    t = json.loads((BAD / "tariff-ok.json").read_text())
    t["currency"] = "XXX1"
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(t, [BAD / "usage-order.csv"], "2026-11")
    assert e.value.field == "currency" and e.value.file == "<tariff>"


def test_wrong_types():
    tariff = BAD / "tariff-ok.json"
    with pytest.raises(TypeError):
        gpurent.meter(42, [BAD / "usage-order.csv"], "2026-11")
    with pytest.raises(TypeError):
        gpurent.meter(tariff, 42, "2026-11")
    with pytest.raises(TypeError):
        gpurent.meter(tariff, [BAD / "usage-order.csv", {"id": "x"}], "2026-11")
    with pytest.raises(TypeError):
        gpurent.meter(tariff, [BAD / "usage-order.csv"], 202611)
    with pytest.raises(ValueError):
        gpurent.meter(tariff, [BAD / "usage-order.csv"], "2026-11", jobs=0)


def test_the_earliest_bad_record_is_reported():
    """A record that cannot be read (None) and one that does not parse: the first in order wins,
    as on one pass over a file, however the records are read in chunks."""
    good = pd.read_csv(GOLDEN / "expected" / "example.usage.csv", dtype=str, keep_default_na=False)
    frame = pd.concat([good] * 400, ignore_index=True)
    frame["id"] = [f"r{k}" for k in range(len(frame))]
    late, early = 30000, 20001
    bad = frame.copy()
    bad["quantity"] = bad["quantity"].astype(object)
    bad.loc[late, "quantity"] = None
    bad.loc[early, "quantity"] = "x"
    tariff = GOLDEN / "expected" / "example.tariff.json"
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(tariff, bad, "2026-11")
    assert e.value.line == early + 1 and e.value.field == "quantity"
    bad.loc[early, "quantity"] = frame.loc[early, "quantity"]
    bad.loc[early - 1, "account"] = None
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(tariff, bad, "2026-11")
    assert e.value.line == early and e.value.field == "account" and e.value.message == "missing value"
