"""Each OSD's scheduler from ``ceph config show-with-defaults osd.N`` as recorded from labs of
Pacific 16.2.15, Reef 18.2.7 and Tentacle 20.2.4 (see each release-lab.source.md), and the
one-line summary ``show --cluster`` prints."""

from __future__ import annotations

import json

import pytest

from cephbench.ceph import fingerprint, scheduler
from tests.helpers import DATA

CEPH = DATA / "ceph"


def _entries(version: str) -> dict:
    raw = json.loads((CEPH / version / "config-show-with-defaults-osd.0.json").read_text())
    return scheduler.keep(raw)


def test_pacific_runs_wpq_and_has_no_mclock_figures():
    s = scheduler.parse("osd.0", _entries("16.2.15"), rotational=True)
    assert (s.queue, s.mclock, s.capacity_iops, s.profile) == ("wpq", False, None, None)
    assert scheduler.describe(s) == "wpq"


# balanced's background best-effort class: Tentacle reserves 5 % for it, at weight 2
BEST_EFFORT = {"18.2.7": (0.0, 1.0), "20.2.4": (0.05, 2.0)}


@pytest.mark.parametrize("version", ["18.2.7", "20.2.4"])
def test_reef_and_tentacle_run_mclock_balanced_on_the_built_in_capacity(version):
    # the lab's OSDs are files on a rotational disk: mClock takes the _hdd capacity, 315 IOPS
    s = scheduler.parse("osd.0", _entries(version), rotational=True)
    assert (s.queue, s.profile, s.kind) == ("mclock_scheduler", "balanced", "hdd")
    assert (s.capacity_iops, s.capacity_from) == (315.0, "default")
    assert s.bandwidth_bytes == 157286400.0  # 150 MiB/s
    assert s.client == {"res": 0.5, "wgt": 1.0, "lim": 0.0}
    assert s.client_limit_iops is None  # 0: unlimited
    assert s.background == {
        "background_recovery": {"res": 0.5, "wgt": 1.0, "lim": 0.0},
        "background_best_effort": dict(zip(("res", "wgt"), BEST_EFFORT[version], strict=True))
        | {"lim": 0.9},
    }
    assert scheduler.describe(s) == ("mclock_scheduler, balanced, 315 IOPS (hdd, built-in default)")


def test_an_ssd_reads_the_ssd_capacity():
    s = scheduler.parse("osd.0", _entries("20.2.4"), rotational=False)
    assert (s.kind, s.capacity_iops, s.bandwidth_bytes) == ("ssd", 21500.0, 1258291200.0)


def _with(entries: dict, **values: tuple[str, str]) -> dict:
    out = dict(entries)
    for name, (value, source) in values.items():
        out[name] = {"value": value, "source": source}
    return out


def test_where_the_capacity_came_from_per_osd_or_set_for_many():
    measured = _with(_entries("20.2.4"), osd_mclock_max_capacity_iops_hdd=("812.5", "mon"))
    dump = [{"section": "osd.0", "name": "osd_mclock_max_capacity_iops_hdd", "value": "812.5"}]
    assert scheduler.parse("osd.0", measured, True, dump).capacity_from == "per-osd"
    dump = [{"section": "osd", "name": "osd_mclock_max_capacity_iops_hdd", "value": "812.5"}]
    assert scheduler.parse("osd.0", measured, True, dump).capacity_from == "set"
    in_file = _with(_entries("20.2.4"), osd_mclock_max_capacity_iops_hdd=("100", "file"))
    assert scheduler.parse("osd.0", in_file, True, []).capacity_from == "set"


def test_a_custom_client_limit_is_a_fraction_of_the_capacity():
    custom = _with(
        _entries("18.2.7"),
        osd_mclock_profile=("custom", "mon"),
        osd_mclock_scheduler_client_lim=("0.1", "mon"),
    )
    s = scheduler.parse("osd.0", custom, rotational=True)
    # Reef's client reservation, 0.5 of 315 IOPS, is above the limit: mClock keeps it
    assert s.client == {"res": 0.5, "wgt": 1.0, "lim": 0.1}
    assert s.client_limit_iops == pytest.approx(157.5)
    low = _with(custom, osd_mclock_scheduler_client_res=("0.05", "mon"))
    s = scheduler.parse("osd.0", low, rotational=True)
    assert s.client_limit_iops == pytest.approx(31.5)
    assert scheduler.describe(s).endswith("client limit 31.5 IOPS")


def test_the_summary_groups_osds_and_says_how_many_were_read():
    e = _entries("20.2.4")
    fp = {
        "osd_metadata": [{"id": i, "rotational": "1"} for i in range(3)],
        "osd_scheduler": {"osds_total": 20, "osd.0": e, "osd.1": e, "osd.2": {"error": "x"}},
        "config": [],
    }
    text = scheduler.summarize(fp)
    assert (
        text == "mclock_scheduler, balanced, 315 IOPS (hdd, built-in default) [2 of 20 OSDs read]"
    )
    assert fingerprint.summarize(fp)["scheduler"] == text
    assert scheduler.summarize({}) is None  # a fingerprint from before it was recorded
