"""Write ``<name>.expected.json`` beside each recorded fio JSON output, from the parser.

Run after record.py, then review the diff: these files are what the parser tests hold it to.
The figures were checked against fio's own normal output of the same runs (``<name>.txt``;
test_fio_parse.py keeps that check) and the merged percentiles against fio's own rule.
"""

import json
from pathlib import Path

from cephbench.tools.fio.parse import parse

HERE = Path(__file__).parent


def expected(path: Path) -> list[dict]:
    stderr = path.with_suffix(".stderr")
    outcomes = parse(path.read_text(), 0, stderr.read_text() if stderr.exists() else "")
    return [
        {
            "name": o.name,
            "groupid": o.groupid,
            "error": o.error,
            "message": o.message,
            "results": [r.to_json() for r in o.results],
        }
        for o in outcomes
    ]


def main() -> None:
    for path in sorted(HERE.glob("*/*.json")):
        if path.name.endswith(".expected.json") or path.with_suffix(".source.md").exists():
            continue  # a corpus entry's figures are written by json_expected.py or record_clients.py
        path.with_name(path.stem + ".expected.json").write_text(
            json.dumps(expected(path), indent=1) + "\n"
        )


if __name__ == "__main__":
    main()
