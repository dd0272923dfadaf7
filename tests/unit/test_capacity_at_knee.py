"""Which part's latency grows first at a capacity search's knee (capacity/at_knee.py,
capacity/osd_counters.py): each step's OSD latencies from perf counters read around it (real
dumps recorded by diagnose on the lab), the OSD whose latency grew the most from the lowest
rate to the knee named with its layer, and none named when none grew."""

from __future__ import annotations

from pathlib import Path

from cephbench.capacity import at_knee
from cephbench.capacity.driver import load, run_capacity
from cephbench.capacity.model import Spec, step_from_json, step_to_json
from cephbench.capacity.osd_counters import latencies, on_ceph
from cephbench.capacity.search import Rule, Step
from cephbench.capacity.steps import StepSpec
from cephbench.ceph.counters import per_osd, window
from cephbench.store import Store
from tests.contract import validate

DATA = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"


def test_a_steps_osd_latencies_are_the_counters_windows():
    """On the perf dumps diagnose recorded around its load under a slow disk on osd.1."""
    before = per_osd((DATA / "diagnose-slow-disk-osd1.perf-before.txt").read_text())
    after = per_osd((DATA / "diagnose-slow-disk-osd1.perf-after.txt").read_text())
    found = latencies(before, after)
    assert {osd for osd, _, _ in found} == set(after) == {"0", "1", "2"}
    for osd, figure, ms in found:
        assert window(before[osd], after[osd])[figure]["ms"] == ms


def test_an_osds_own_latency_names_the_slow_one_where_op_w_cannot():
    """Recorded by diagnose: under a slow disk on osd.1 every primary waits for it (op_w
    216, 220, 210 ms), but only osd.1's own part grew; a CPU-starved osd.2 likewise."""
    for name, slow in (("slow-disk-osd1", "1"), ("cpu-osd2", "2")):
        before = per_osd((DATA / f"diagnose-{name}.perf-before.txt").read_text())
        after = per_osd((DATA / f"diagnose-{name}.perf-after.txt").read_text())
        own = {}
        for osd in after:
            figures = {f: w["ms"] for f, w in window(before[osd], after[osd]).items()}
            own[osd] = at_knee.own_ms(figures, "op_w")
        assert max(own, key=own.__getitem__) == slow, own
    assert latencies({}, after) == () and latencies(before, {}) == ()


def test_only_ceph_targets_have_osds_to_ask():
    assert on_ceph("rbd:pool/img") and on_ceph("cephfs:lab") and on_ceph(None)
    assert not on_ceph("file:/tmp") and not on_ceph("pvc:cephbench-lab")


def _step(rate: float, p99_ms: float, osds: dict[str, dict[str, float]], repeat: int = 0) -> Step:
    figures = tuple((o, f, ms) for o, fs in osds.items() for f, ms in fs.items())
    return Step(
        rate, rate, ((50.0, p99_ms * 300), (99.0, p99_ms * 1000)), repeat, None, (), None, figures
    )


def _write(op: float, process: float, kv: float, aio: float, commit: float) -> dict[str, float]:
    return {"op_w": op, "op_w_process": process, "kv_sync": kv, "aio_wait": aio, "commit": commit}


FLAT = _write(2.0, 1.8, 0.6, 0.4, 1.2)  # its own part: 0.2 in the queue + 1.2 to commit


def slow_disk_steps() -> list[Step]:
    """osd.1's device slows as the load rises; osd.0 and osd.2 stay flat, their op_w
    waiting for osd.1 as it would (their own part does not grow)."""
    slow_peer = _write(19.0, 18.8, 0.6, 0.4, 1.2)
    return [
        _step(500, 3, {"0": FLAT, "1": _write(2.2, 2.0, 0.7, 0.5, 1.4), "2": FLAT}),
        _step(1000, 4, {"0": FLAT, "1": _write(4.0, 3.6, 1.5, 1.3, 3.0), "2": FLAT}),
        _step(
            2000,
            9,
            {
                "0": _write(20.4, 20.0, 0.7, 0.4, 1.3),
                "1": _write(20.0, 17.0, 8.0, 8.0, 17.0),
                "2": slow_peer,
            },
        ),
        _step(4000, 60, {"0": FLAT, "1": _write(90.0, 60.0, 30.0, 28.0, 60.0), "2": FLAT}),
    ]


def test_the_osd_whose_latency_grew_most_is_named_with_its_layer():
    part = at_knee.at_knee(slow_disk_steps(), 2000, "op_w")
    assert part is not None and part.osd == "1" and part.layer == "device"
    # own parts: 0.2 + 1.4 at 500 IOPS, 3.0 + 17.0 at the knee; the peers' 1.7 and 1.4
    assert (part.low_iops, part.knee_iops, part.low_ms, part.knee_ms) == (500, 2000, 1.6, 20.0)
    assert (part.layer_low_ms, part.layer_knee_ms) == (1.2, 16.0)
    assert part.others_knee_ms == 1.7
    assert at_knee.line(part.to_json()) == (
        "At the knee osd.1's own part of the writes slowed down first: 1.60 -> 20.00 ms "
        "between 500 and 2,000 IOPS offered, most of it in its device (1.20 -> 16.00 ms); the "
        "other OSDs at most 1.70 ms."
    )


def test_a_queue_that_grows_is_the_queue():
    steps = [
        _step(500, 3, {"0": FLAT, "1": FLAT}),
        _step(2000, 9, {"0": FLAT, "1": _write(12.0, 2.0, 0.6, 0.4, 1.2)}),
    ]
    part = at_knee.at_knee(steps, 2000, "op_w")
    assert part is not None and part.osd == "1" and part.layer == "queue"


def test_no_osd_named_when_all_grew_alike():
    """As on the healthy lab: one OSD's own part grew the most, but another is as slow."""
    steps = [
        _step(
            500, 3, {"0": _write(2.0, 1.8, 0.4, 0.1, 1.55), "1": _write(2.0, 1.8, 0.4, 0.1, 1.4)}
        ),
        _step(
            1439, 20, {"0": _write(4.0, 3.4, 0.8, 0.2, 2.42), "1": _write(4.0, 3.5, 0.8, 0.2, 2.68)}
        ),
    ]
    part = at_knee.at_knee(steps, 1439, "op_w")
    assert part is not None and part.osd is None and part.alike
    assert (part.low_ms, part.knee_ms, part.others_knee_ms) == (1.6, 3.18, 3.02)
    assert "slowed down alike" in at_knee.line(part.to_json())


def test_no_osd_named_when_none_grew():
    same = _write(2.5, 2.2, 0.6, 0.4, 1.2)  # its own part 1.5 ms at every rate
    steps = [_step(r, 2 + r / 1000, {"0": FLAT, "1": same}) for r in (500, 1000, 2000)]
    part = at_knee.at_knee(steps, 2000, "op_w")
    assert part is not None and part.osd is None and part.others_knee_ms == 1.5
    assert "the limit is outside the OSDs" in at_knee.line(part.to_json())
    # steps without OSD latencies (a file, a pod) or without a lower rate: nothing to say
    assert at_knee.at_knee([Step(r, r, ((99.0, 1000.0),)) for r in (1, 2, 3)], 2, "op_w") is None
    assert at_knee.at_knee(slow_disk_steps(), 500, "op_w") is None


def test_a_step_keeps_its_osd_latencies_through_the_store(tmp_path, invoke):
    """The search's document names the part, validates, and reads back the same."""
    by_rate = {s.offered_iops: s for s in slow_disk_steps()}

    def measure(rate: float, repeat: int) -> Step:
        nearest = min(by_rate, key=lambda r: abs(r - rate))
        s = by_rate[nearest]
        return Step(rate, rate, s.percentiles, repeat, None, (), None, s.osd_latency)

    step = slow_disk_steps()[2]
    assert step_from_json(step_to_json(step)) == step
    spec = Spec(Rule(10_000.0), StepSpec(), start=500, ci=0.5, max_repeats=3)
    with Store(tmp_path / "r.db") as store:
        doc = validate(load(store, run_capacity(store, spec, "rbd:p/i", measure)).to_json())
    part = doc["part_at_knee"]
    assert part["osd"] == "osd.1" and part["layer"] == "device"
    assert doc["steps"][0]["osd_latency_ms"]["osd.1"]["commit"] == 1.4
    shown = invoke("capacity", "--show", "last", db=tmp_path / "r.db").output
    assert "At the knee osd.1's own part of the writes slowed down first" in " ".join(shown.split())
