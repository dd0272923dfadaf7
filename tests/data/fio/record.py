"""Re-record the fio fixtures: ``python tests/data/fio/record.py`` (needs fio on PATH).

Each ``<version>/<name>.fio`` job file is run once with ``--output-format=json+,normal``;
the JSON part (with whatever fio prints before it) goes to ``<name>.json`` and fio's normal
text output of the same run to ``<name>.txt``, so parsers of both formats can be checked
against one another. ``randread_qd8`` is also recorded with plain ``json``.
Expected results (``<name>.expected.json``) are written by ``make_expected.py`` and reviewed.
"""

import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent


def record(job: Path, fmt: str, out_json: Path, out_txt: Path | None) -> None:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as data:
        proc = subprocess.run(
            ["fio", f"--output-format={fmt}", str(job)],
            capture_output=True,
            text=True,
            env={"FIO_DATA": data, "PATH": "/usr/bin:/bin"},
        )
    text = proc.stdout
    start = text.index("\n{\n") + 1 if not text.startswith("{") else 0
    _, end = json.JSONDecoder().raw_decode(text, start)
    out_json.write_text(text[:end] + "\n")
    if out_txt is not None:
        out_txt.write_text(text[:start] + text[end:].lstrip("\n"))  # as a user sees it
    if proc.stderr:
        out_json.with_suffix(".stderr").write_text(proc.stderr)
    print(f"{job.name}: exit {proc.returncode} -> {out_json.name}", file=sys.stderr)


def record_interrupted(folder: Path) -> None:
    """groups4.fio with 2 s groups, SIGINT after 3 s: fio's report of an interrupted run."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as data:
        proc = subprocess.Popen(
            ["fio", "--output-format=json+", "--runtime=2", str(folder / "groups4.fio")],
            stdout=subprocess.PIPE,
            text=True,
            env={"FIO_DATA": data, "PATH": "/usr/bin:/bin"},
        )
        time.sleep(3)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate()
    (folder / "groups4_interrupted.json").write_text(out)
    print(f"groups4 interrupted at 3 s: exit {proc.returncode}", file=sys.stderr)


def main() -> None:
    version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout
    folder = HERE / version.strip().removeprefix("fio-")
    for job in sorted(folder.glob("*.fio")):
        record(job, "json+,normal", job.with_suffix(".json"), job.with_suffix(".txt"))
    plain = folder / "randread_qd8.fio"
    record(plain, "json", folder / "randread_qd8_plainjson.json", None)
    record_interrupted(folder)


if __name__ == "__main__":
    main()
