# SPDX-License-Identifier: MIT
"""Python values the library never sees as a file's text: each is read exactly or refused with
a gpurent.Error naming its record (or argument) and field; nothing is billed under a made-up
text, dropped or cut short."""
import datetime
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import gpurent
from conftest import run_tool

DATA = Path(__file__).resolve().parents[2] / "tests" / "io" / "data"
TARIFF = {"currency": "USD", "timezone": "UTC",
          "rates": [{"resource": "gpu/H100", "mode": "on_demand", "unit_price": "3.60", "per": "1h"}]}
RECORD = {"id": "r1", "account": "acme", "resource": "gpu/H100", "mode": "on_demand", "quantity": "4",
          "start": "2026-11-03T10:00:00Z", "end": "2026-11-03T11:00:00Z"}
UTC = datetime.timezone.utc


def frame(n=3):
    return pd.DataFrame([dict(RECORD, id=f"r{k}") for k in range(1, n + 1)])


def refused(usage, line, field, message=None, **kw):
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(TARIFF, usage, "2026-11", **kw)
    assert (e.value.file, e.value.line, e.value.field) == ("<records>", line, field), str(e.value)
    if message is not None:
        assert e.value.message == message, str(e.value)
    return e.value


def test_pandas_missing_values_are_missing_not_text():
    """pd.NA (a "string" column's, or any cell's) was billed to an account named "<NA>"."""
    df = frame().astype("string")
    df.loc[2, "account"] = pd.NA
    refused(df, 3, "account", "missing value")
    df = frame().astype(object)
    df.loc[1, "quantity"] = pd.NA
    refused(df, 2, "quantity", "missing value")
    refused([dict(RECORD, account=pd.NA)], 1, "account", "missing value")
    refused([dict(RECORD, start=pd.NaT)], 1, "start", "missing value")
    refused([dict(RECORD, quantity=Decimal("NaN"))], 1, "quantity", "missing value")


def test_none_in_a_record_is_a_missing_value_as_in_a_dataframe():
    for field in ("account", "quantity"):
        refused([RECORD, dict(RECORD, **{field: None})], 2, field, "missing value")
        df = frame().astype(object)
        df.loc[1, field] = None
        refused(df, 2, field, "missing value")


@pytest.mark.parametrize("cell", [b"acme", True, np.bool_(False), ["x"], object(), datetime.date(2026, 11, 3)], ids=repr)
def test_a_cell_that_is_not_text_an_int_or_a_decimal_is_refused(cell):
    e = refused([RECORD, dict(RECORD, id="r2", account=cell)], 2, "account")
    assert e.message.startswith("expected text, an int or a decimal.Decimal, got ")
    df = frame().astype(object)
    df.at[0, "account"] = cell
    refused(df, 1, "account")


def test_ints_are_read_but_not_bools():
    inv = gpurent.meter(TARIFF, [dict(RECORD, quantity=4), dict(RECORD, id="r2", quantity=np.int64(4))], "2026-11")
    assert inv.total == Decimal("28.80")
    refused([dict(RECORD, quantity=True)], 1, "quantity")


def test_datetimes_naive_or_fractional_are_refused_as_in_a_dataframe():
    """A datetime in a record lost its fraction of a second and a naive one was taken as UTC,
    where the same instant as text without an offset is refused."""
    aware = datetime.datetime(2026, 11, 3, 10, tzinfo=UTC)
    inv = gpurent.meter(TARIFF, [dict(RECORD, start=aware, end=aware + datetime.timedelta(hours=1))], "2026-11")
    assert inv.total == Decimal("14.40")
    naive = refused([dict(RECORD, start=datetime.datetime(2026, 11, 3, 10))], 1, "start")
    fraction = refused([RECORD, dict(RECORD, id="r2", start=aware.replace(microsecond=999999))], 2, "start")
    assert "time zone" in naive.message and "whole second" in fraction.message
    df = frame()
    df["start"] = pd.to_datetime(df["start"]).dt.tz_localize(None)
    assert refused(df, 1, "start").message == naive.message
    df = frame()
    df["start"] = pd.to_datetime(df["start"]) + pd.to_timedelta([0, 0, 1], unit="ms")
    assert refused(df, 3, "start").message == fraction.message
    refused([dict(RECORD, start=pd.Timestamp("2026-11-03T10:00:00.000000001Z"))], 1, "start", fraction.message)


def test_decimals_with_an_exponent_are_read_exactly():
    one = gpurent.meter(TARIFF, [dict(RECORD, quantity="10")], "2026-11")
    assert gpurent.meter(TARIFF, [dict(RECORD, quantity=Decimal("1E+1"))], "2026-11").to_json() == one.to_json()
    tiny = gpurent.meter(TARIFF, [dict(RECORD, quantity=Decimal("0.0000001"))], "2026-11")
    assert tiny.to_json() == gpurent.meter(TARIFF, [dict(RECORD, quantity="0.0000001")], "2026-11").to_json()
    tariff = json.loads(json.dumps(TARIFF))
    tariff["rates"][0]["unit_price"] = Decimal("1E-7")
    tariff["rates"][0]["per"] = "1s"
    assert gpurent.load_tariff(tariff) is not None
    with pytest.raises(TypeError, match="bytes is not JSON"):
        gpurent.load_tariff(dict(tariff, currency=b"USD"))


def test_paths_with_a_nul_are_refused(tmp_path):
    """The library opened the file named by the part before the NUL."""
    usage = tmp_path / "usage.csv"
    usage.write_text(",".join(RECORD) + "\n" + ",".join(RECORD.values()) + "\n")
    tariff = tmp_path / "tariff.json"
    tariff.write_text(json.dumps(TARIFF))
    for call in (lambda: gpurent.meter(tariff, f"{usage}\x00x", "2026-11"),
                 lambda: gpurent.meter(f"{tariff}\x00x", usage, "2026-11"),
                 lambda: gpurent.Tariff.load(f"{tariff}\x00x"),
                 lambda: gpurent.fleet_run(nodes=f"{usage}\x00x", jobs=usage),
                 lambda: gpurent.idle(f"{usage}\x00x")):
        with pytest.raises(ValueError, match="embedded null byte"):
            call()


def test_a_message_keeps_its_text_past_a_nul():
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(TARIFF, [RECORD], "2026-11\x00xx")
    assert e.value.field == "period" and "xx" in str(e.value) and str(e.value).endswith(e.value.message)


@pytest.mark.parametrize("jobs", [0, 4097, 100000, 2**32 - 1, 2**32, -1])
def test_jobs_out_of_range(jobs):
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(TARIFF, [RECORD], "2026-11", jobs=jobs)
    assert e.value.field == "jobs" and "1 to 4096" in str(e.value)


@pytest.mark.parametrize("jobs", [1.5, None, "2", True])
def test_jobs_of_the_wrong_type(jobs):
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(TARIFF, [RECORD], "2026-11", jobs=jobs)
    assert e.value.field == "jobs" and isinstance(e.value, TypeError)


def test_jobs_as_a_numpy_int():
    want = gpurent.meter(TARIFF, [RECORD], "2026-11").to_json()
    assert gpurent.meter(TARIFF, [RECORD], "2026-11", jobs=np.int64(3)).to_json() == want


def test_text_a_lone_surrogate_is_in():
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(TARIFF, [RECORD], "\udc80")
    assert e.value.field == "period"
    refused([RECORD, dict(RECORD, account="a\udc80")], 2, "account", "not UTF-8 text: a lone surrogate at character 2")
    df = frame()
    df["account"] = ["a", "b\udc80", "c"]
    refused(df, 2, "account")


def test_pandas_integer_columns():
    """Int64 with a missing value was a bare pandas ValueError, uint64 past int64 wrapped round."""
    df = frame()
    df["quantity"] = pd.array([4, None, 1], dtype="Int64")
    refused(df, 2, "quantity", "missing value")
    df["quantity"] = np.array([1, 2**64 - 1, 1], dtype=np.uint64)
    e = refused(df, 2, "quantity")
    assert "18446744073709551615" in str(e) and "-1" not in str(e)
    df["quantity"] = np.array([4, 4, 4], dtype=np.uint64)
    assert gpurent.meter(TARIFF, df, "2026-11").total == Decimal("43.20")


def test_a_column_twice_is_the_headers_error():
    df = pd.concat([frame(), frame()[["id"]]], axis=1)
    with pytest.raises(gpurent.Error) as e:
        gpurent.meter(TARIFF, df, "2026-11")
    assert e.value.file == "<records>" and e.value.field == "id"


def test_fleet_dataframes_as_pandas_reads_them(fleet_inputs):
    """pd.read_csv makes an integer column with empty cells float, and bools bools: the same
    run as the file's; a fraction is still refused."""
    want = gpurent.fleet_run(nodes=fleet_inputs / "nodes.csv", topology=fleet_inputs / "topology.json", jobs=fleet_inputs / "jobs.csv")
    jobs = pd.read_csv(fleet_inputs / "jobs.csv")
    assert jobs["cpu_milli"].dtype.kind == "f" and jobs["preemptible"].dtype.kind == "b"
    nodes = pd.read_csv(fleet_inputs / "nodes.csv")
    got = gpurent.fleet_run(nodes=nodes, topology=fleet_inputs / "topology.json", jobs=jobs)
    assert got.jobs_csv() == want.jobs_csv() and got.placements_csv() == want.placements_csv()
    jobs.loc[1, "cpu_milli"] = 4000.5
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=nodes, topology=fleet_inputs / "topology.json", jobs=jobs)
    assert (e.value.line, e.value.field) == (3, "cpu_milli") and "4000.5" in str(e.value)


def test_a_job_with_nan_names_its_field(fleet_inputs):
    p = gpurent.GangPlacer(nodes=fleet_inputs / "nodes.csv", topology=fleet_inputs / "topology.json")
    for v in (float("nan"), float("inf")):
        with pytest.raises(gpurent.Error) as e:
            p.place({"name": "x", "workers": 1, "num_gpu": v})
        assert e.value.field == "num_gpu" and e.value.file == "request"


def test_idle_errors_name_the_argument():
    with pytest.raises(gpurent.Error) as e:
        gpurent.idle(DATA / "dcgm_exporter.prom", metric="FOO")
    assert e.value.field == "metric" and "--metric" not in str(e.value)


def test_mig_fit_of_nothing():
    for want in ([], ""):
        with pytest.raises(gpurent.Error) as e:
            gpurent.mig_fit("A100-SXM4-40GB", want=want)
        assert e.value.field == "want" and "no profile" in e.value.message


def test_idle_periods_need_no_matplotlib():
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "import gpurent\n"
            f"r = gpurent.idle({str(DATA / 'dcgm_exporter.prom')!r}, min_idle='5min')\n"
            "assert r.periods['seconds'].sum() == r.data['idle_s']\n"
            "assert 'gpurent.report' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_allow_unmatched_differs_from_the_tool_only_in_the_name(tool, tmp_path):
    """docs/python.md: with allow_unmatched=True the bytes are the tool's but for the name of
    the argument in the warning."""
    usage = tmp_path / "usage.csv"
    usage.write_text((DATA / "idle_usage.csv").read_text() + "r9,acme,gpu/H100,on_demand,1,2026-11-03T00:00:00Z,2026-11-03T00:10:00Z,GPU-nowhere\n")
    r = gpurent.idle(DATA / "query_range.json", usage=usage, tariff=DATA / "idle_tariff.json", period="2026-11", allow_unmatched=True)
    want = run_tool(tool, "idle", "--metrics", DATA / "query_range.json", "--usage", usage, "--tariff", DATA / "idle_tariff.json",
                    "--period", "2026-11", "--allow-unmatched", "--format", "json")
    assert r.to_json() != want and r.to_json().replace("allow_unmatched=True", "--allow-unmatched") == want


def test_a_workload_job_with_nan_names_its_place_and_field(fleet_inputs):
    with pytest.raises(gpurent.Error) as e:
        gpurent.Matcher(nodes=fleet_inputs / "nodes.csv", workload=[{"name": "y", "num_gpu": 1}, {"name": "x", "num_gpu": float("nan")}])
    assert (e.value.file, e.value.line, e.value.field) == ("workload[1]", 1, "num_gpu")
