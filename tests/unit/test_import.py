"""`cephbench import`: detection, Markdown blocks, stdin, dry runs, all-or-nothing files."""

from __future__ import annotations

import json

import pytest

from cephbench.tools.fio.parse import extract
from tests.helpers import DATA, FIO_DATA

SAMPLE_2X = DATA / "fio" / "2.1.11" / "psync-randrw.txt"


def test_json_and_text_files_become_runs(invoke, invoke_json):
    invoke("import", str(FIO_DATA / "groups4.json"), str(SAMPLE_2X), "--label", "attempt 1")
    runs = invoke_json("runs")["runs"]
    assert [(r["label"], r["suite"], r["status"]) for r in runs] == [
        ("attempt 1", "import", "complete")
    ] * 2
    first, second = (invoke_json("show", str(r["id"])) for r in runs)
    assert [r["workload"] for r in first["results"]] == ["seq_wr", "seq_rd", "rand_rd", "rand_wr"]
    assert first["environment"]["import"]["parser"] == "fio-json"
    assert second["environment"]["import"] == {
        "source": str(SAMPLE_2X),
        "parser": "fio-text",
        "tool": "fio",
        "tool_version": "fio-2.1.11",
        "warnings": [],
    }
    assert second["results"][0]["iops"] == 640.0


def test_markdown_blocks_each_become_a_run(invoke, invoke_json, tmp_path):
    post = tmp_path / "blog.md"
    post.write_text(
        "# Attempt 1\nWe ran fio:\n\n```\n" + SAMPLE_2X.read_text() + "```\n\nSome prose.\n\n"
        "```bash\nls -l\n```\n\n## Attempt 2\n```json\n"
        + (FIO_DATA / "randrw_70.json").read_text()
        + "```\n"
    )
    invoke("import", str(post))
    runs = invoke_json("runs")["runs"]
    assert [r["target"] for r in runs] == [f"{post}#1", f"{post}#2"]


def test_stdin(invoke, invoke_json):
    invoke("import", "-", input=(FIO_DATA / "randread_qd8.txt").read_text())
    assert invoke_json("show", "last")["target"] == "-"


def test_dry_run_stores_nothing_and_shows_the_show_shape(invoke, invoke_json):
    out = invoke_json("import", str(FIO_DATA / "randrw_70.txt"), "--dry-run")
    assert out["schema"] == "cephbench.import-plan/1"
    assert invoke_json("runs")["runs"] == []
    (run,) = out["runs"]
    assert run["id"] is None  # not stored
    invoke("import", str(FIO_DATA / "randrw_70.txt"))
    stored = invoke_json("show", "last")
    assert run.keys() == stored.keys()
    assert [r["iops"] for r in run["results"]] == [r["iops"] for r in stored["results"]]


def test_nothing_recognised_names_the_file_and_stores_nothing(invoke, invoke_json, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("just some notes\nno benchmark here\n")
    result = invoke("import", str(FIO_DATA / "groups4.json"), str(junk), expect=None)
    assert (
        result.exit_code != 0 and "notes.txt: no fio (JSON or normal), rados bench" in result.output
    )
    assert "Traceback" not in result.output
    assert invoke_json("runs")["runs"] == []  # not even the good file: nothing is half-imported


def test_forced_parser(invoke, invoke_json):
    result = invoke("import", str(FIO_DATA / "groups4.json"), "--as", "fio-text", expect=None)
    assert result.exit_code != 0 and "read as fio-text" in result.output


def test_client_server_lines_and_list_shaped_global_options(invoke, invoke_json, tmp_path):
    original = (FIO_DATA / "randread_qd8.json").read_text()
    doc = extract(original).data
    doc["global options"] = [doc["global options"]]  # some fio versions print a one-element list
    damaged = tmp_path / "cs.json"
    lines = json.dumps(doc, indent=2).splitlines()
    lines.insert(5, "<node2> fio: some client/server chatter")
    damaged.write_text("<node1> Starting 1 process\n" + "\n".join(lines) + "\ntrailing text\n")
    invoke("import", str(FIO_DATA / "randread_qd8.json"), str(damaged))
    a, b = (invoke_json("show", str(r["id"]))["results"] for r in invoke_json("runs")["runs"])
    assert a == b


def test_two_clients_sum_to_fios_all_clients_figure(invoke, invoke_json):
    path = FIO_DATA / "clientserver_two_clients.json"
    invoke("import", str(path))
    (result,) = invoke_json("show", "last")["results"]
    everyone = next(
        c for c in extract(path.read_text()).data["client_stats"] if c["jobname"] == "All clients"
    )
    assert result["numjobs"] == 2
    assert result["iops"] == pytest.approx(everyone["read"]["iops"], rel=1e-6)
    assert result["total_ios"] == everyone["read"]["total_ios"]


def test_no_latency_is_null_with_a_warning(invoke, invoke_json):
    result = invoke("import", str(FIO_DATA / "gtod_reduce.txt"))
    assert "no latency recorded" in result.output
    (r,) = invoke_json("show", "last")["results"]
    assert r["lat_mean_us"] is None and r["lat_p99_us"] is None
