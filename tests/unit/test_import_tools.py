"""Importing rados bench, ceph tell osd bench and iperf3 outputs: goldens on lab recordings and
on our reconstructions of older releases' layouts (see each ``.source.md``), pasting damage,
detection, and the iperf3 text checked against the JSON of the same run."""

from __future__ import annotations

import json
import re

import pytest

from cephbench.errors import ParseError
from cephbench.importing import importer
from cephbench.tools.iperf3 import paste as iperf3_text
from cephbench.tools.rados_bench import paste as rados_bench_paste
from tests.data.make_expected_tools import expected_import, fixtures, golden, goldens, is_corpus
from tests.helpers import DATA

FIXTURES = fixtures()
GOLDENS = goldens()
IPERF = DATA / "iperf3" / "3.12"
RADOS = DATA / "rados-bench"
PASTE_TAIL = "\n[root@node1 ~]# exit\nlogout\nConnection to node1 closed.\n"


def _id(path):
    return f"{path.parent.parent.name}/{path.parent.name}/{path.name}"


def test_every_fixture_has_its_own_golden():
    assert len({golden(p) for p in FIXTURES}) == len(FIXTURES) > 20
    assert all(golden(p).exists() for p in FIXTURES)


@pytest.mark.parametrize("path", GOLDENS, ids=_id)
def test_matches_expected(path):
    assert expected_import(path) == json.loads(golden(path).read_text())


def _figures(text: str) -> list:
    return [
        [(o.name, o.error, [r.to_json() for r in o.results]) for o in p.found.outcomes]
        for p in importer.plan("x", text, None)
    ]


def _mangled(text: str, markdown: bool) -> dict[str, str]:
    stripped = "\n".join(line.lstrip() for line in text.splitlines())
    variants = {
        "indentation lost": stripped,
        "prompt and command before": "[root@node1 ~]# cat /root/bench/results.txt\n" + text,
        "crlf": text.replace("\n", "\r\n"),
        "trailing junk": text + PASTE_TAIL,
    }
    if not markdown:
        variants["markdown fence"] = "Our results:\n\n```text\n" + text + "\n```\n\nMore prose.\n"
        variants["all at once"] = (
            "$ cat out\n```\n" + stripped.replace("\n", "\r\n") + "\r\n```" + PASTE_TAIL
        )
    return variants


@pytest.mark.parametrize("path", FIXTURES, ids=_id)
def test_pasting_damage_changes_no_figure(path):
    text = path.read_text()
    reference = _figures(text)
    for name, damaged in _mangled(text, path.suffix == ".md").items():
        assert _figures(damaged) == reference, name


TOOL_OF_DIR = {"rados-bench": "rados-bench", "ceph": "osd-bench", "iperf3": "iperf3"}


@pytest.mark.parametrize("path", FIXTURES, ids=_id)
def test_detected_as_its_tool(path):
    segments = [s for block, before in importer.sections(path.read_text()) for s in (before, block)]
    blocks = [s for s in segments if s.strip() and importer.detect(s)]  # prose may hold one too
    tools = {TOOL_OF_DIR[path.parent.parent.name]}
    if is_corpus(path):  # a published post may hold outputs of several tools: its golden says which
        tools = {
            run["parser"] for run in json.loads(golden(path).read_text()).get("runs", [])
        } or tools
    assert blocks and {importer.detect(b) for b in blocks} == tools


FIO_OUTPUTS = sorted(
    p
    for p in (DATA / "fio").glob("*/*")
    if p.suffix in (".json", ".txt") and not p.name.endswith(".expected.json")
)


@pytest.mark.parametrize("path", FIO_OUTPUTS, ids=lambda p: p.name)
def test_fio_outputs_stay_fio(path):
    assert importer.detect(path.read_text()) in ("fio-json", "fio-text")
    for name, test in importer.DETECT:
        if name not in ("fio-json", "fio-text"):  # nor would they be taken for another tool
            assert not test(path.read_text()), name


# --- rados bench: modes, runs, older releases ----------------------------------------------


def _workloads(text: str) -> list[list[tuple[str, str | None, int | None]]]:
    return [
        [(o.name, o.results[0].rw, o.results[0].iodepth) for o in f.outcomes]
        for f in importer.read("x", text)
    ]


def test_write_seq_rand_session_is_one_run_comparable_with_the_rados_suite():
    assert _workloads((RADOS / "16.2.15" / "session-t16.txt").read_text()) == [
        [("write", "write", 16), ("seq", "seq", 16), ("rand", "rand", 16)]
    ]


def test_mode_and_concurrency_from_the_command_line_in_any_argument_order():
    write, seq, rand = (_part(m) for m in ("write", "seq", "rand"))
    text = (
        f"$ rados bench -p rbd 10 write --no-cleanup -b 4M\n{write}\n"
        f"# sudo rados -p x bench 10 rand -t 32\n{rand}\nceph@admin:~$ rados bench 60 seq -p 1 --concurrent-ios=8\n{seq}"
    )
    assert _workloads(text) == [[("write", "write", 16), ("rand", "rand", 32), ("seq", "seq", 8)]]


def test_a_read_without_its_command_line_is_read_with_a_warning_never_a_guess():
    (p,) = importer.plan("x", _part("rand"), None)
    (result,) = p.found.outcomes[0].results
    assert (result.workload, result.rw, result.op, result.iodepth) == ("read", "read", "read", None)
    assert any("seq or rand is unknown" in w for w in p.warnings)


def test_a_command_line_that_contradicts_the_output_is_not_believed():
    (p,) = importer.plan("x", "$ rados bench -p rbd 10 write\n" + _part("seq"), None)
    assert p.found.outcomes[0].name == "read" and any("says write" in w for w in p.warnings)


def test_the_same_mode_again_starts_a_new_run():
    text = "\n".join(
        f"$ rados bench -p rbd 5 {m} -t 16\n{_part(m)}" for m in ("write", "seq", "write", "rand")
    )
    assert [[name for name, *_ in run] for run in _workloads(text)] == [
        ["write", "seq"],
        ["write", "rand"],
    ]


def test_fenced_blocks_of_one_post_are_one_run():
    post = "# Attempt 3\n\n" + "\n\nThen:\n\n".join(
        f"```\nrados bench -p rbd 5 {m} -t 16\n{_part(m)}\n```" for m in ("write", "seq", "rand")
    )
    (p,) = importer.plan("post.md", post, None)
    assert [o.name for o in p.found.outcomes] == ["write", "seq", "rand"] and p.source == "post.md"


def test_firefly_outputs_have_iops_derived_and_flagged():
    runs = importer.plan("x", (RADOS / "firefly-2014" / "two-clusters.md").read_text(), None)
    write = runs[0].found.outcomes[0].results[0]
    assert write.iops == pytest.approx(6118 / 60.184207) and write.flags == ("iops_derived",)
    assert write.bw_bytes_per_s == pytest.approx(406.618 * 2**20) and write.lat_mean_us == 157268.0
    assert any("IOPS not printed" in w for w in runs[0].warnings)


def test_version_kept_when_the_paste_shows_it():
    (p,) = importer.plan("x", (RADOS / "0.47.2" / "write-60s.txt").read_text(), None)
    assert p.found.tool_version == "0.47.2"
    assert p.environment["tools"] == {"rados-bench": "0.47.2"}
    assert (
        len(
            rados_bench_paste.parse_pasted((RADOS / "0.47.2" / "write-60s.txt").read_text())[
                0
            ].output.series
        )
        == 61
    )


def _part(mode: str) -> str:
    """One output of the recorded 16.2.15 session, without its command line."""
    text = (RADOS / "16.2.15" / "session-t16.txt").read_text()
    parts = re.split(r"^\$ rados bench .*$\n", text, flags=re.MULTILINE)[1:]
    return dict(zip(("write", "seq", "rand"), parts, strict=True))[mode]


# --- ceph tell osd bench ---------------------------------------------------------------------


def test_an_osd_that_did_not_answer_is_a_failed_workload():
    (p,) = importer.plan(
        "x", (DATA / "ceph" / "16.2.15" / "osd-bench-osd2-down.txt").read_text(), None
    )
    run = p.as_run()
    assert [r.workload for r in run.results] == ["osd.0", "osd.1"]
    assert [(f.workload, f.error) for f in run.failures] == [
        ("osd.2", "Error ENXIO: problem getting command descriptions from osd.2")
    ]


def test_old_json_keys_and_one_osd_named_from_its_command_line():
    firefly = (
        "root@osdhost-2:~# ceph tell osd.4 bench 1073741824 4194304\n"
        '{ "bytes_written": 1073741824,\n  "blocksize": 4194304,\n  "bytes_per_sec": "57934123.000000"}\n'
    )
    (p,) = importer.plan("x", firefly, None)
    (r,) = p.found.outcomes[0].results
    assert (r.workload, r.bw_bytes_per_s, r.runtime_s) == ("osd.4", 57934123.0, None)
    assert r.iops == pytest.approx(57934123 / 4194304) and r.flags == ("iops_derived",)
    assert any("run time null" in w for w in p.warnings)


def test_text_form_units_are_binary():
    (p,) = importer.plan("x", (DATA / "ceph" / "0.47.2" / "osd-bench-ceph-w.md").read_text(), None)
    slow = p.found.outcomes[1].results[0]
    assert (slow.workload, slow.bw_bytes_per_s, slow.io_bytes, slow.bs) == (
        "osd.1",
        55982 * 1024,
        1 << 30,
        4 << 20,
    )
    assert slow.iops == pytest.approx(256 / 18.730552)


# --- iperf3: the text against the JSON of the same run ---------------------------------------


def _text_row(name: str):
    (row,) = iperf3_text.parse_text((IPERF / f"{name}.txt").read_text())
    return row


def _server_sum(name: str, side: str) -> dict:
    return json.loads((IPERF / f"{name}.server.json").read_text())["end"][f"sum_{side}"]


PRINTED = 0.005  # iperf3 prints 3 significant digits


@pytest.mark.parametrize("name", ["tcp", "tcp-P4", "udp"])
def test_received_figures_agree_with_the_servers_json_of_the_same_run(name):
    row, received = _text_row(name), _server_sum(name, "received")
    assert row.io_bytes == pytest.approx(received["bytes"], rel=PRINTED)
    assert dict(row.metrics)["bits_per_second"] == pytest.approx(
        received["bits_per_second"], rel=PRINTED
    )
    assert row.bw_bytes_per_s == pytest.approx(received["bits_per_second"] / 8, rel=PRINTED)
    assert row.runtime_s == pytest.approx(received["seconds"], abs=0.005)


def test_sent_figures_and_retransmits_agree_with_the_sending_servers_json():
    row, sent = _text_row("tcp-R"), _server_sum("tcp-R", "sent")
    assert dict(row.metrics)["sent_bits_per_second"] == pytest.approx(
        sent["bits_per_second"], rel=PRINTED
    )
    assert dict(row.metrics)["retransmits"] == sent["retransmits"]


def test_both_sides_agree_with_the_exact_results_iperf3_exchanged_in_the_same_output():
    text = (IPERF / "tcp-P4-debug.txt").read_text()
    decoder = json.JSONDecoder()
    sent, received = (
        decoder.raw_decode(text, text.index("{", text.index(f"{tag}\n")))[0]["streams"]
        for tag in ("send_results", "get_results")
    )
    (row,) = iperf3_text.parse_text(text)
    m = dict(row.metrics)
    assert m["retransmits"] == sum(s["retransmits"] for s in sent)
    assert m["sent_bits_per_second"] == pytest.approx(
        sum(s["bytes"] for s in sent) * 8 / max(s["end_time"] for s in sent), rel=PRINTED
    )
    assert row.io_bytes == pytest.approx(sum(s["bytes"] for s in received), rel=PRINTED)


def test_units_bytes_are_1024_based_bits_1000_based():
    line = (
        "[  5]   0.00-10.00  sec  10.9 GBytes  9.38 Gbits/sec    0             sender\n"
        "[  5]   0.00-10.00  sec  10.9 GBytes  9.37 Gbits/sec                  receiver\n"
    )
    (row,) = iperf3_text.parse_text(line)
    assert row.io_bytes == int(10.9 * 2**30) and dict(row.metrics)["bits_per_second"] == 9.37e9
    assert dict(row.metrics) == {
        "bits_per_second": 9.37e9,
        "retransmits": 0.0,
        "sent_bits_per_second": 9.38e9,
    }


def test_text_and_json_of_a_test_name_the_workload_alike():
    text_names = {
        r.workload
        for name in ("tcp", "tcp-R")
        for r in iperf3_text.parse_text((IPERF / f"{name}.txt").read_text())
    }
    json_names = {
        o.name
        for name in ("tcp-P4.client.json", "tcp-R.client.json", "tcp.server.json")
        for f in importer.read(name, (IPERF / name).read_text())
        for o in f.outcomes
    }
    assert text_names == json_names == {"127.0.0.1->127.0.0.1"}


# --- published outputs: cut-off runs, command lines above the output ---------------------


def test_a_run_cut_off_before_its_summary_is_skipped_and_named():
    (p,) = importer.plan("x", (RADOS / "16-dev" / "zoned-storage.txt").read_text(), None)
    assert [o.name for o in p.found.outcomes] == ["write", "rand"]
    assert p.found.skipped == ("a rados bench output cut off at second 10, before its summary",)
    assert any(
        "skipped: a rados bench output cut off" in line for line in importer.report("x", [p])
    )


def test_only_a_cut_off_run_is_an_error_that_says_why():
    text = (RADOS / "16-dev" / "zoned-storage.txt").read_text()
    cut = text[text.rindex("$ sudo ./bin/rados bench") :]
    with pytest.raises(ParseError, match="cut off at second 10"):
        importer.plan("x", "```\n" + cut + "\n```\n", None)


def test_the_command_line_in_a_block_above_gives_mode_and_says_so():
    runs = importer.plan("x", (RADOS / "13-dev" / "messenger-comparison.md").read_text(), None)
    assert [[(r.rw, r.iodepth) for r in p.as_run().results] for p in runs] == [
        [("write", 16)],
        [("write", 16), ("seq", None)],
        [("seq", None), ("rand", None)],
        [("rand", None)],
    ]
    assert all("command line taken from above the output" in w for p in runs for w in p.warnings)
