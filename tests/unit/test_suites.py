"""Built-in suites are valid data; a bad suite file names the file, the field and the fix."""

from __future__ import annotations

import pytest

from cephbench.errors import UsageError
from cephbench.planning.plan import make_plan
from cephbench.tools.fio.suites import builtin_names, load_suite, to_jobfile
from cephbench.tools.plan import Overrides


def test_builtins():
    assert {"standard", "table", "mixed", "latency", "sync", "quick"} <= set(builtin_names())


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_renders_one_stonewall_group_per_workload(name):
    jf = to_jobfile(load_suite(name))
    assert jf.jobs and all(j.has("stonewall") for j in jf.jobs)
    assert jf.global_.has("group_reporting") and jf.global_.get("lat_percentiles") == "1"


def test_standard_is_what_users_post():
    spec = load_suite("standard")
    assert [(w.name, w.rw, w.bs, w.iodepth) for w in spec.workloads] == [
        ("seq_wr", "write", "128k", 256),
        ("seq_rd", "read", "128k", 256),
        ("rand_rd", "randread", "4k", 256),
        ("rand_wr", "randwrite", "4k", 256),
    ]
    assert spec.global_["ioengine"] == "libaio" and spec.global_["direct"] == 1
    assert spec.global_["runtime"] == 60


def test_quick_is_standard_shorter():
    quick, standard = load_suite("quick"), load_suite("standard")
    assert quick.workloads == standard.workloads
    assert quick.global_["runtime"] < standard.global_["runtime"]


def test_sync_scales_jobs_with_fdatasync():
    spec = load_suite("sync")
    assert [w.numjobs for w in spec.workloads] == [1, 2, 4, 8, 16]
    assert all(
        w.options["fdatasync"] == 1 and w.iodepth == 1 and w.bs == "4k" for w in spec.workloads
    )


def test_unknown_suite_lists_the_valid_ones():
    with pytest.raises(UsageError) as e:
        make_plan("nosuch", Overrides())
    assert "standard" in e.value.hint and "quick" in e.value.hint


@pytest.mark.parametrize(
    "body, words",
    [
        (
            "name: x\ndescription: d\nworkloads:\n  - {name: a, rw: sideways}\n",
            ["bad.yaml", "workloads.0.rw", "randread"],
        ),
        (
            "name: x\ndescription: d\ncolour: red\nworkloads: [{name: a, rw: read}]\n",
            ["bad.yaml", "colour", "unknown field"],
        ),
        (
            "name: x\ndescription: d\nworkloads:\n  - {name: a, rw: read, iodepth: 0}\n",
            ["workloads.0.iodepth", "greater than or equal to 1"],
        ),
        ("- just a list\n", ["bad.yaml", "mapping"]),
        ("name: [unclosed\n", ["bad.yaml", "not valid YAML"]),
    ],
)
def test_bad_suite_file(tmp_path, body, words):
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    with pytest.raises(UsageError) as e:
        load_suite(str(path))
    for word in words:
        assert word in str(e.value)


def test_overrides_are_validated():
    with pytest.raises(UsageError, match="not a size"):
        make_plan("quick", Overrides(size="lots"))
