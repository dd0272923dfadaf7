"""The fio JSON parser, held to recorded fio 3.33 outputs and to fio's own text output."""

from __future__ import annotations

import json
import re

import pytest

from cephbench.errors import ParseError
from cephbench.tools.fio.parse import extract, extract_all, parse
from tests.helpers import FIO_DATA

OUTPUTS = sorted(
    p
    for p in FIO_DATA.glob("*.json")
    if not p.name.endswith(".expected.json") and not p.with_suffix(".source.md").exists()
)  # a file with a .source.md is a corpus entry: test_fio_corpus.py checks it


def _parse(path):
    stderr = path.with_suffix(".stderr")
    return parse(path.read_text(), 0, stderr.read_text() if stderr.exists() else "")


@pytest.mark.parametrize("path", OUTPUTS, ids=lambda p: p.stem)
def test_matches_expected(path):
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    got = [
        {
            "name": o.name,
            "groupid": o.groupid,
            "error": o.error,
            "message": o.message,
            "results": [r.to_json() for r in o.results],
        }
        for o in _parse(path)
    ]
    assert _close(got, expected)


def _close(got, expected) -> bool:
    """Equal, with floats compared to 1e-9 relative."""
    if isinstance(expected, dict):
        assert got.keys() == expected.keys()
        return all(_close(got[k], expected[k]) for k in expected)
    if isinstance(expected, list):
        assert len(got) == len(expected)
        return all(_close(g, e) for g, e in zip(got, expected, strict=True))
    if isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-9)
        return True
    assert got == expected
    return True


HEADLINE = re.compile(r"^\s*(read|write|trim): IOPS=([\d.]+)(k?), BW=([\d.]+)(KiB|MiB|GiB)/s", re.M)
JOB_HEADER = re.compile(r"^(\S+): \(groupid=(\d+), jobs=(\d+)\)", re.M)


@pytest.mark.parametrize(
    "path", [p for p in OUTPUTS if p.with_suffix(".txt").exists()], ids=lambda p: p.stem
)
def test_agrees_with_fio_text_output(path):
    """Each job's IOPS and bandwidth agree with what fio printed as text in the same run."""
    text = path.with_suffix(".txt").read_text()
    blocks = JOB_HEADER.split(text)[1:]
    printed = {}
    for i in range(0, len(blocks), 4):
        name, body = blocks[i], blocks[i + 3]
        for op, iops, k, bw, unit in HEADLINE.findall(body):
            printed.setdefault((name, op), []).append(
                (
                    float(iops) * (1000 if k else 1),
                    float(bw) * {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit],
                )
            )
    parsed = {(o.name, r.op): r for o in _parse(path) for r in o.results if r.iops}
    assert parsed, "no results parsed"
    for key, r in parsed.items():
        rows = printed[key]
        iops = sum(x for x, _ in rows)  # clones without group_reporting print one line each
        bw = sum(y for _, y in rows)
        assert r.iops == pytest.approx(iops, rel=0.01, abs=1)
        assert r.bw_bytes_per_s == pytest.approx(bw, rel=0.01, abs=2**10)


def test_mixed_workload_has_one_result_per_direction():
    (job,) = _parse(FIO_DATA / "randrw_70.json")
    assert [r.op for r in job.results] == ["read", "write"]
    read, write = job.results
    assert read.iops > write.iops  # 70 % reads
    assert read.rw == write.rw == "randrw"


def test_gtod_reduce_leaves_latency_null_not_zero():
    (job,) = _parse(FIO_DATA / "gtod_reduce.json")
    (r,) = job.results
    assert r.iops > 0
    assert r.lat_kind is None
    assert r.lat_mean_us is r.lat_p99_us is r.lat_max_us is None
    assert "no_latency" in r.flags


def test_total_latency_preferred_and_completion_latency_said_so():
    (lat,) = _parse(FIO_DATA / "randread_qd8.json")
    (clat,) = _parse(FIO_DATA / "seqwrite_clat.json")
    assert lat.results[0].lat_kind == "lat"
    assert clat.results[0].lat_kind == "clat"


def test_clones_without_group_reporting_are_merged_like_fio_would():
    (clones,) = _parse(FIO_DATA / "numjobs4.json")
    (r,) = clones.results
    assert r.numjobs == 4
    doc = extract((FIO_DATA / "numjobs4.json").read_text()).data
    assert r.iops == pytest.approx(sum(j["write"]["iops"] for j in doc["jobs"]))
    assert r.total_ios == sum(j["write"]["total_ios"] for j in doc["jobs"])
    assert r.lat_max_us == max(j["write"]["lat_ns"]["max"] for j in doc["jobs"]) / 1000
    assert r.lat_p50_us <= r.lat_p99_us <= r.lat_p999_us


def test_group_reporting_reports_one_workload():
    (grouped,) = _parse(FIO_DATA / "numjobs4_group.json")
    assert grouped.results[0].numjobs == 4


def test_four_groups_in_order():
    assert [(o.name, o.groupid) for o in _parse(FIO_DATA / "groups4.json")] == [
        ("seq_wr", 0),
        ("seq_rd", 1),
        ("rand_rd", 2),
        ("rand_wr", 3),
    ]


def test_job_error_carries_fios_own_error_line():
    good, full = _parse(FIO_DATA / "error_enospc.json")
    assert good.error == 0 and good.message is None
    assert full.error == 28
    assert "err=28" in full.message and "No space left on device" in full.message


def test_plain_json_without_bins():
    (job,) = _parse(FIO_DATA / "randread_qd8_plainjson.json")
    assert job.results[0].lat_p99_us is not None


@pytest.mark.parametrize("text", ["", "fio: some failure\n", '{"not": "fio"}', "{ truncated"])
def test_no_document_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse(text)


def _doc_text(name: str) -> str:
    return json.dumps(extract((FIO_DATA / name).read_text()).data, indent=2)


def test_every_complete_document_found_in_pasted_text():
    """ssh warnings and fio's stderr before it, the same document twice, a second run, a
    document inside a source-code string: every complete document, each once."""
    one, two = _doc_text("randread_qd8.json"), _doc_text("randrw_70.json")
    pasted = (
        "Warning: Permanently added 'node1' (ED25519) to the list of known hosts.\n"
        "fio: terminating on signal 2\n$ fio --output-format=json job.fio\n"
        + one
        + "\nuser@host:~$ "
        + one
        + "\n"
        + 'EXPECTED = """'
        + two
        + '"""\n'
    )
    docs = [d.data["jobs"][0]["jobname"] for d in extract_all(pasted)]
    assert docs == [
        "randread_qd8",
        extract((FIO_DATA / "randrw_70.json").read_text()).data["jobs"][0]["jobname"],
    ]
    assert "fio: terminating on signal 2" in extract_all(pasted)[0].messages


def test_mean_kept_without_percentiles():
    """clat_percentiles=0 / an empty percentile_list: the means stay, percentiles are null."""
    doc = extract((FIO_DATA / "randread_qd8.json").read_text()).data
    for job in doc["jobs"]:
        for op in ("read", "write", "trim"):
            for kind in ("lat_ns", "clat_ns"):
                job[op][kind].pop("percentile", None)
    (full,) = _parse(FIO_DATA / "randread_qd8.json")
    (bare,) = parse(json.dumps(doc))
    a, b = full.results[0], bare.results[0]
    assert b.lat_mean_us == a.lat_mean_us and b.clat_mean_us == a.clat_mean_us
    assert b.lat_p99_us is None and b.percentiles == () and "no_latency" not in b.flags


def test_mean_is_total_latency_and_percentiles_keep_their_kind():
    (job,) = _parse(FIO_DATA / "seqwrite_clat.json")
    r = job.results[0]
    doc = extract((FIO_DATA / "seqwrite_clat.json").read_text()).data["jobs"][0]["write"]
    assert r.lat_mean_us == doc["lat_ns"]["mean"] / 1000
    assert r.clat_mean_us == doc["clat_ns"]["mean"] / 1000
    assert r.slat_mean_us == doc["slat_ns"]["mean"] / 1000
    assert r.lat_kind == "clat" and r.lat_p99_us == doc["clat_ns"]["percentile"]["99.000000"] / 1000


def test_a_job_without_io_says_fios_own_reason():
    """fio refused a mounted device: no error number, no I/O, and its reason on stderr."""
    (job,) = _parse(FIO_DATA / "mounted_abort.json")
    assert job.error == 0 and not job.results
    assert job.failure == (
        "fio: /dev/loop0 appears mounted, and 'allow_mounted_write' isn't set. Aborting."
    )


def test_fio_without_a_report_fails_with_its_first_specific_line():
    """fio could not load the engine: no JSON, three `fio:` lines, the first on stderr the
    specific one (issue 25, item 2)."""
    from cephbench.system.process import ProcessResult
    from cephbench.tools.fio.jobfile import parse_jobfile
    from cephbench.tools.fio.plan import Batch
    from cephbench.tools.fio.steps import batch_outcomes

    rec = FIO_DATA / "engine_not_loadable"
    result = ProcessResult(
        ("fio",),
        1,
        rec.with_suffix(".stdout").read_text(),
        rec.with_suffix(".stderr").read_text(),
        0.01,
    )
    batch = Batch(parse_jobfile("[x]\nioengine=nosuchengine\nrw=read\nbs=4k\n"), chained=False)
    (outcome,) = batch_outcomes(result, 0, batch)
    assert outcome.error == "fio failed: fio: engine nosuchengine not loadable"
