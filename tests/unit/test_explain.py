"""``cephbench explain`` on a recorded diagnosis and run of the 3-host lab (imported from their
export: see tests/data/ceph/16.2.15/explain.source.md), its JSON against the schema, the
report's Explained section, and the diagnosis' ceilings and readable evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.diagnose import budget, findings, render
from tests.contract import validate

DATA = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"


@pytest.fixture
def lab_runs(invoke) -> tuple[int, int]:
    """(the diagnosis, the run of the quick suite) of the healthy lab, imported."""
    invoke("import", DATA / "explain-healthy.export.json")
    return 1, 2


def test_explain_gives_every_workload_a_ceiling_a_limiting_part_and_an_efficiency(
    lab_runs, invoke_json
):
    diag, run = lab_runs
    doc = invoke_json("explain", str(run))
    assert doc["diagnosis_run"] == diag and doc["layout"] == "replicated size 3"
    assert doc["cpu_measured"] is True and doc["model_defects"] == 0
    names = {w["workload"]: w for w in doc["workloads"]}
    assert set(names) == {"seq_wr", "seq_rd", "rand_rd", "rand_wr"}
    for w in doc["workloads"]:
        assert w["ceiling_iops"] > 0 and 0 < w["efficiency"] <= 1.10
        assert w["limiting_part"] == w["parts"][0]["part"]
        assert w["line"].startswith(w["line"].split(":")[0])
    assert names["seq_wr"]["limiting_layer"] == "network"  # 128k writes: a host's 500 Mbit/s
    assert names["rand_wr"]["limiting_layer"] == "cpu"  # 4k writes: the lab's 2 cores
    # a diagnosis recorded before each OSD's own reads were measured: said so
    assert any("no OSD's own reads measured" in n for n in names["rand_rd"]["not_measured"])
    # an rbd: run is librbd: its cache, as the run's fingerprint recorded the configuration
    cache = doc["capabilities"]["client_cache"]
    assert cache["policy"] == "writearound" and cache["early_bytes"] == 24 << 20
    assert names["seq_wr"]["client_cache_iops"] > 0 and names["seq_rd"]["client_cache_iops"] == 0


def test_explain_as_markdown_and_a_table(lab_runs, invoke):
    out = invoke("explain", "2", "--format", "md").stdout
    assert "| Workload | Measured | Ceiling | Efficiency | Limiting part | QD1 floor |" in out
    assert "rand_wr 4k qd256: " in out and "% of the" in out
    assert "4k write IOPS" in out
    assert "The client: librbd's cache (writearound) completes up to 24 MiB of writes" in out
    assert "Run 2 explained by diagnosis 1" in invoke("explain", "last").stdout


def test_explain_refuses_a_run_on_no_cluster_and_a_cluster_never_diagnosed(lab_runs, invoke, db):
    from tests.helpers import store_run

    other = store_run(db, "file", [[100.0, 100.0, 100.0, 100.0]])
    got = invoke("explain", str(other), expect=2)
    assert "not a benchmark of a Ceph cluster" in got.output
    got = invoke("explain", "1", expect=2)  # the diagnosis itself
    assert "not a benchmark of a Ceph cluster" in got.output


def test_explain_without_a_stored_diagnosis_says_how_to_get_one(invoke, tmp_path):
    doc = json.loads((DATA / "explain-healthy.export.json").read_text())
    doc["runs"] = doc["runs"][1:]  # the run alone
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    invoke("import", path)
    got = invoke("explain", "1", expect=2)
    assert "no stored diagnosis of cluster" in got.output and "--measure" in got.output


def test_the_report_of_a_run_has_an_explained_section(lab_runs, invoke, tmp_path):
    out = tmp_path / "r.md"
    invoke("report", "2", "-o", out)
    text = out.read_text()
    assert "Explained: each workload against its ceiling" in text
    assert "cephbench explain 2 --diagnosis 1" in text


def test_the_report_of_a_diagnosis_opens_with_its_findings_and_has_no_sweep(
    lab_runs, invoke, tmp_path
):
    out = tmp_path / "d.md"
    invoke("report", "1", "-o", out)
    text = out.read_text()
    assert "nothing to compare" not in text and "Sweep" not in text
    first = text.index("## Diagnosis of run 1")
    assert first < text.index("## Runs")
    assert text.index("Latency budget") < text.index("Ceilings the measured parts imply")
    assert text.index("Ceilings the measured parts imply") < text.index("**Checked**")


def test_diagnosis_document_has_ceilings_and_validates(lab_runs, db):
    from cephbench.diagnose import stored
    from cephbench.store import Store

    with Store(db) as s:
        doc = validate(stored.document(s, 1))
    c = doc["ceilings"]
    assert c["layout"] == "replicated size 3"
    assert [r["workload"] for r in c["ceilings"]] == [
        "4k random write QD32",
        "4M write QD16",
        "4k random write QD1",
    ]
    assert all(r["ceiling_iops"] > 0 and r["limiting_part"] for r in c["ceilings"])
    assert c["ceilings"][2]["latency_floor_ms"] > 0


def evidence(name: str) -> dict:
    return json.loads((DATA / f"diagnose-{name}.evidence.json").read_text())


@pytest.mark.parametrize("name", ["slow-disk-osd1", "slow-link-host2", "cpu-osd2", "all-links"])
def test_evidence_is_a_short_text_with_units_never_raw_json(name):
    doc = findings.diagnose(evidence(name)).to_json()
    for f in doc["findings"]:
        text = render.digest(f)
        assert "{" not in text and len(text) <= 400
        assert any(u in text for u in ("ms", "Mbit/s", "IOPS", "/s", "%")) or f["layer"] in (
            "placement",
            "cluster",
            "client",
        )


def test_the_budget_never_prints_a_clamped_zero():
    for name in ["healthy", "slow-disk-osd1", "cpu-osd2", "slow-link-host2", "all-links"]:
        b = budget.budget(evidence(name))
        for p in b["parts"]:
            assert p["ms"] is None or p["ms"] > 0 or "note" in p
            if p["ms"] is None:
                assert p.get("note") and "overlaps" in p["note"]
    e = evidence("slow-disk-osd1")
    for info in e["osds"].values():  # a commit longer than the processing: parts overlap
        if info.get("qd1_write", {}).get("commit"):
            info["qd1_write"]["commit"]["ms"] = 1000.0
    b = budget.budget(e)
    proc = next(p for p in b["parts"] if p["part"] == "processing in the primary OSD")
    assert proc["ms"] is None and "overlap" in proc["note"]
    assert any("overlaps" in n for n in b["notes"])
    table = render.budget_tables(b)[0]
    assert all(row[1] != "0.000" for row in table.rows)


def test_a_ceiling_is_in_mib_per_s_by_its_block_size_not_its_name():
    """A diagnosis' ceilings in MiB/s for a workload of large blocks (4 MiB per I/O: bytes
    over I/Os), in IOPS for one of 4k blocks, whatever their names say."""
    from cephbench.diagnose.explain import ceilings_table

    def row(name: str, iops: float, bs: int) -> dict:
        return {
            "workload": name,
            "ceiling_iops": iops,
            "ceiling_bytes_per_s": round(iops * bs, 1),
            "limiting_part": "osd.0's device",
            "why": "",
            "latency_floor_ms": None,
        }

    c = {
        "layout": "replicated size 3",
        "ceilings": [row("big sequential writes", 52.3, 4 << 20), row("4M-ish", 1234.5, 4096)],
    }
    big, small = ceilings_table(c).rows
    assert big[1] == "209 MiB/s"  # 52.3 x 4 MiB
    assert small[1] == "1,234 IOPS"


def test_explain_names_the_cache_a_read_came_from(invoke, invoke_json):
    """A recorded CephFS run on the lab (tests/data/served/README.md): a buffered re-read the
    CephFS client's cache served (the data pool served none of its bytes, flag cached)
    is explained by that cache, with no efficiency; the direct read beside it as before."""
    invoke("import", DATA / "explain-cached.export.json")
    doc = validate(invoke_json("explain", "2"))
    got = {w["workload"]: w for w in doc["workloads"]}
    cached, direct = got["buffered_rd"], got["direct_rd"]
    assert cached["served_from_cache"] == {
        "cache": "the CephFS client's cache",
        "layer": "pool cephfs.lab.data",
        "served_read_ratio": 0.0,
        "repeats": 1,
        "of_repeats": 1,
    }
    assert cached["limiting_part"] == "the CephFS client's cache"
    assert cached["limiting_layer"] == "client" and cached["efficiency"] is None
    assert not cached["model_defect"] and not cached["above_ceiling"]
    assert "served from the CephFS client's cache, not from the cluster" in cached["line"]
    assert "pool cephfs.lab.data served 0.0 % of the bytes fio read" in cached["line"]
    assert "served_from_cache" not in direct and direct["efficiency"] > 0
    assert direct["limiting_part"] == direct["parts"][0]["part"]
    text = invoke("explain", "2", "--format", "md").stdout
    assert "n/a (served from a cache)" in text
