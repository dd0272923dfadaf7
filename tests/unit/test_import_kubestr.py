"""kubestr's fio output (``kubestr fio -s CLASS``) imports exactly: a run per output, a
workload per job, IOPS as printed and KiB/s x 1024 in bytes/s, no latency (never 0); a garbled
or cut-off paste is never stored silently as complete. Published outputs:
tests/data/kubestr/ (see PROVENANCE.md)."""

from __future__ import annotations

import pytest

from cephbench.errors import ParseError
from cephbench.importing import importer
from tests.helpers import DATA

KUBESTR = DATA / "kubestr"
CEPH_BLOCK = KUBESTR / "ynsta-kubernetes-lab-ceph-block.txt"
CIVO_EKS = KUBESTR / "civo-eks.md"
GKE = KUBESTR / "gke-premium-rwo.txt"
GARBLED = KUBESTR / "ten-gig-garbled.txt"
JOBS = {
    "read_iops": ("read", "randread", 4096),
    "write_iops": ("write", "randwrite", 4096),
    "read_bw": ("read", "randread", 131072),
    "write_bw": ("write", "randwrite", 131072),
}


def _plans(path, force=None):
    return importer.plan(path.name, path.read_text(), None, force)


def _figures(run) -> dict[str, tuple[float | None, float | None]]:
    return {r.workload: (r.iops, r.bw_bytes_per_s) for r in run.results}


def test_rook_ceph_block_exact():
    (plan,) = _plans(CEPH_BLOCK)
    assert plan.found.parser == "kubestr"
    run = plan.as_run()
    assert _figures(run) == {
        "read_iops": (4516.090332, 18081 * 1024.0),
        "write_iops": (1384.712402, 5555 * 1024.0),
        "read_bw": (4216.318848, 540225 * 1024.0),
        "write_bw": (1337.141357, 171689 * 1024.0),
    }
    for r in run.results:
        assert (r.op, r.rw, r.bs, r.iodepth) == (*JOBS[r.workload], 64)
        assert r.lat_mean_us is None and r.lat_p99_us is None and r.lat_kind is None
        assert r.flags == ("no_latency",)
    read = run.results[0]
    assert dict(read.metrics) == {
        "iops_min": 3948.0,
        "iops_max": 5351.0,
        "iops_avg": 4545.344727,
        "bw_kib_per_s_min": 15792.0,
        "bw_kib_per_s_max": 21405.0,
        "bw_kib_per_s_avg": 18182.035156,
    }
    params = run.params["kubestr"]
    assert params["storage_class"] == "ceph-block" and params["pvc_size"] == "10Gi"
    assert params["fio_version"] == "fio-3.36" and params["elapsed"] == "31.005216056s"
    assert params["global_options"] == {
        "ioengine": "libaio", "verify": "0", "direct": "1", "gtod_reduce": "1",
    }  # fmt: skip
    assert params["disk_stats"] == [
        "rbd0: ios=146995/45202 merge=0/12 ticks=1862837/2004973 in_queue=3867810, util=99.568275%"
    ]
    assert params["jobs"]["write_bw"] == {
        "blocksize": "128k", "filesize": "2G", "iodepth": "64", "rw": "randwrite",
    }  # fmt: skip
    assert plan.found.warnings == ()
    assert all("no latency" in w for w in plan.warnings)  # said, once per result


def test_a_post_with_two_classes_is_two_runs_each_with_its_own_header():
    civo, eks = _plans(CIVO_EKS)
    assert _figures(civo.as_run()) == {
        "read_iops": (8648.512695, 34610 * 1024.0),
        "write_iops": (7751.394043, 31022 * 1024.0),
        "read_bw": (8203.345703, 1050563 * 1024.0),
        "write_bw": (7947.864746, 1017862 * 1024.0),
    }
    assert _figures(eks.as_run()) == {
        "read_iops": (691.434265, 2782 * 1024.0),
        "write_iops": (482.692322, 1947 * 1024.0),
        "read_bw": (583.372009, 75206 * 1024.0),
        "write_bw": (343.612915, 44518 * 1024.0),
    }
    c, e = civo.as_run().params["kubestr"], eks.as_run().params["kubestr"]
    assert (c["storage_class"], c["pvc_size"], c["fio_version"]) == (
        "civo-volume",
        "100Gi",
        "fio-3.30",
    )
    assert (e["storage_class"], e["pvc"], e["elapsed"]) == (
        "gp2",
        "kubestr-fio-pvc-p2sfv",
        "55.166581659s",
    )
    assert c["disk_stats"][0].startswith("sda: ios=276447/258401 ")
    assert e["disk_stats"][0].startswith("nvme1n1: ios=21943/15505 ")


def test_gke_premium_rwo_between_shell_prompts():
    (plan,) = _plans(GKE)
    run = plan.as_run()
    assert _figures(run) == {
        "read_iops": (692.495239, 2786 * 1024.0),
        "write_iops": (375.618439, 1519 * 1024.0),
        "read_bw": (685.625793, 88291 * 1024.0),
        "write_bw": (367.465118, 47566 * 1024.0),
    }
    params = run.params["kubestr"]
    assert (params["storage_class"], params["fio_version"]) == ("premium-rwo", "fio-3.20")
    assert params["disk_stats"] == [
        "sdb: ios=28787/13090 merge=0/272 ticks=2178446/2138357 in_queue=4294880, util=99.430069%"
    ]
    assert plan.found.warnings == ()


def test_a_garbled_paste_imports_its_whole_jobs_with_a_warning_naming_the_damage():
    (plan,) = _plans(GARBLED)
    run = plan.as_run()
    assert _figures(run) == {
        "read_iops": (536.328308, 2161 * 1024.0),
        "write_iops": (525.518616, 2118 * 1024.0),
        "read_bw": (510.109985, 65825 * 1024.0),
        "write_bw": (504.872375, 65158 * 1024.0),
    }
    (warning,) = plan.found.warnings
    assert warning.startswith("3 lines belonging to no job (a garbled paste?), not read: ")
    assert "'FIO test results:x=674 avg=376.724152'" in warning
    assert "'blocksize=128k filesize=2G iodepth=64 rw=randwrite'" in warning
    assert run.params["kubestr"]["storage_class"] == "synology-nfs-csi"


def test_cut_in_the_last_job_stores_the_whole_ones_and_names_the_cut():
    text = CEPH_BLOCK.read_text()
    cut = text[: text.index("  iops: min=1139")]  # write_bw: its IOPS line, no more
    (plan,) = importer.plan("cut.txt", cut, None)
    assert [o.name for o in plan.found.outcomes] == ["read_iops", "write_iops", "read_bw"]
    assert plan.found.skipped == (
        "kubestr job write_bw on StorageClass ceph-block cut off: its write iops: line not in "
        "the output",
    )
    assert plan.found.warnings == (
        "the output ends before kubestr's 'Disk stats' line: cut off there?",
    )


def test_only_cut_jobs_is_refused_naming_them():
    text = CEPH_BLOCK.read_text()
    with pytest.raises(ParseError, match="nothing complete to import: kubestr job read_iops"):
        importer.plan("cut.txt", text[: text.index("read:")], None)


def test_detected_by_content_and_forced_with_as():
    assert importer.detect(GKE.read_text()) == "kubestr"
    (plan,) = _plans(GKE, force="kubestr")
    assert plan.found.parser == "kubestr"
    with pytest.raises(ParseError):
        importer.plan("x.txt", "no output here\n", None, "kubestr")


def test_import_then_show_json(invoke, invoke_json):
    invoke("import", str(CEPH_BLOCK), "--as", "kubestr")
    shown = invoke_json("show", "last")
    assert shown["status"] == "complete"
    assert shown["environment"]["import"]["parser"] == "kubestr"
    assert shown["environment"]["import"]["tool"] == "kubestr"
    assert shown["params"]["kubestr"]["storage_class"] == "ceph-block"
    read = shown["results"][0]
    assert (read["workload"], read["iops"], read["bw_bytes_per_s"]) == (
        "read_iops", 4516.090332, 18514944.0,
    )  # fmt: skip
    assert read["lat_mean_us"] is None and read["flags"] == ["no_latency"]
    assert [r["workload"] for r in shown["results"]] == list(JOBS)


def test_pasted_with_crlf_and_lost_indentation_reads_the_same():
    text = CEPH_BLOCK.read_text()
    mangled = "\r\n".join(line.lstrip() for line in text.split("\n"))
    (plan,) = importer.plan("pasted.txt", mangled, None)
    (exact,) = _plans(CEPH_BLOCK)
    assert plan.as_run().results == exact.as_run().results
    assert plan.found.warnings == ()


def test_two_classes_compare_workload_by_workload(invoke, invoke_json):
    invoke("import", str(CIVO_EKS), str(GKE))
    civo, _eks, gke = (r["id"] for r in invoke_json("runs")["runs"])
    rows = invoke_json("compare", str(civo), str(gke))["rows"]
    iops = {r["workload"]: r["values"] for r in rows if r["metric"] == "iops"}
    assert iops == {
        "read_iops": {str(civo): 8648.512695, str(gke): 692.495239},
        "write_iops": {str(civo): 7751.394043, str(gke): 375.618439},
        "read_bw": {str(civo): 8203.345703, str(gke): 685.625793},
        "write_bw": {str(civo): 7947.864746, str(gke): 367.465118},
    }
    lat = [r["values"] for r in rows if r["metric"] == "lat_mean_us"]
    assert lat and all(v is None for values in lat for v in values.values())  # absent, never 0


def test_a_lost_line_of_any_job_is_never_stored_silently():
    lines = CEPH_BLOCK.read_text().split("\n")
    first, last = lines.index("JobName: read_iops"), lines.index("Disk stats (read/write):")
    for i in range(first, last + 1):
        if not lines[i].strip():
            continue
        (plan,) = importer.plan("lost.txt", "\n".join(lines[:i] + lines[i + 1 :]), None)
        assert plan.found.warnings or plan.found.skipped, f"line {i} lost silently: {lines[i]}"
