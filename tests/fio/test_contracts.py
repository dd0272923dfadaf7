"""The data contract on a real fio run: what `show` prints validates against its schema, and
a renamed or missing field does not."""

from __future__ import annotations

import copy

import pytest

from tests.contract import validate
from tests.helpers import needs_fio

QUICK = ("--runtime", "1", "--size", "16m")


@needs_fio
def test_show_runs_of_a_real_fio_run_validate_and_a_renamed_or_missing_field_does_not(
    invoke, invoke_json, bench_dir
):
    invoke("run", "quick", "--target", f"file:{bench_dir}", *QUICK)
    run = invoke_json("show", "last")  # validated on the way
    assert run["schema"] == "cephbench.run/1" and len(run["results"]) == 4
    listing = invoke_json("runs")
    assert listing["schema"] == "cephbench.runs/1" and listing["runs"][0]["id"] == run["id"]
    raw = invoke_json("show", "last", "--raw")
    (output,) = raw["outputs"]
    assert output["tool"] == "fio"
    assert output["workloads"] == ["seq_wr", "seq_rd", "rand_rd", "rand_wr"]
    assert {k: v for k, v in raw.items() if k not in ("outputs", "series")} == run
    assert {s["name"] for s in raw["series"]} >= {
        "iops",
        "bw_bytes_per_s",
        "lat_mean_us",
    }  # fio's logs

    def broken(change) -> str:
        doc = copy.deepcopy(run)
        change(doc)
        with pytest.raises(AssertionError) as e:
            validate(doc)
        return str(e.value)

    r0 = lambda d: d["results"][0]  # noqa: E731
    renamed = broken(lambda d: r0(d).__setitem__("lat_mean_ms", r0(d).pop("lat_mean_us")))
    assert "lat_mean_ms" in renamed and "'lat_mean_us' is a required property" in renamed
    assert "'iops' is a required property" in broken(lambda d: r0(d).pop("iops"))
    assert "is not of type" in broken(lambda d: r0(d).__setitem__("iops", str(r0(d)["iops"])))
    assert "'results' is a required property" in broken(lambda d: d.pop("results"))
    assert "cephbench.run/2" in broken(lambda d: d.__setitem__("schema", "cephbench.run/2"))
    assert "'label' is a required property" in broken(lambda d: d.pop("label"))
