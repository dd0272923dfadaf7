"""Write ``<name>.expected.json`` beside each rados bench, ceph tell osd bench and iperf3
fixture, from the importer (what ``cephbench import`` would store), and the driver-level
goldens of the three single rados bench outputs of 16.2.15.

Run after adding or re-recording a fixture, then review the diff: these files are what the
tests hold the parsers to. The figures were checked by hand against the outputs (and the
iperf3 text against the JSON of the same run: test_import_tools.py keeps that check).
"""

import json
from pathlib import Path

from cephbench.importing import importer
from cephbench.tools.rados_bench import driver as rados_bench

HERE = Path(__file__).parent
DRIVER_LEVEL = [HERE / "rados-bench" / "16.2.15" / f"{mode}.txt" for mode in rados_bench.MODES]


def fixtures() -> list[Path]:
    """Every rados bench, osd bench and iperf3 output under tests/data (source notes and
    goldens excluded): our recordings and reconstructions, and the corpus of published ones,
    except those cephbench is known to import wrong (``known_wrong``: test_corpus.py holds
    them as strict xfails)."""
    found = [
        *HERE.glob("rados-bench/*/*"),
        *HERE.glob("ceph/*/osd-bench*"),
        *HERE.glob("iperf3/*/*"),
    ]
    return sorted(
        p
        for p in found
        if p.suffix in (".txt", ".md", ".json")
        and p not in DRIVER_LEVEL
        and not p.name.endswith((".expected.json", ".source.md"))
        and not _known_wrong(p)
    )


def _known_wrong(path: Path) -> bool:
    gold = golden(path)
    return gold.exists() and "known_wrong" in json.loads(gold.read_text())


def is_corpus(path: Path) -> bool:
    """A published output of the corpus: its golden is make_expected_corpus.py's (an object,
    independent of the importer), not this script's."""
    gold = golden(path)
    return gold.exists() and isinstance(json.loads(gold.read_text()), dict)


def goldens() -> list[Path]:
    """The fixtures whose golden this script writes (the corpus has its own)."""
    return [p for p in fixtures() if not is_corpus(p)]


def expected_import(path: Path) -> list[dict]:
    return [
        {
            "parser": p.found.parser,
            "tool_version": p.found.tool_version,
            "warnings": list(p.warnings),
            "workloads": [
                {"name": o.name, "failure": o.error, "results": [r.to_json() for r in o.results]}
                for o in p.found.outcomes
            ],
        }
        for p in importer.plan(path.name, path.read_text(), None)
    ]


def expected_driver(path: Path) -> dict:
    out = rados_bench.parse(path.read_text(), path.stem)
    return {
        "summary": out.summary,
        "series": [list(p) for p in out.series],
        "result": rados_bench.to_result(out, 0, 16).to_json(),
    }


def golden(path: Path) -> Path:
    return path.with_name(path.name.rsplit(".", 1)[0] + ".expected.json")


def main() -> None:
    for path in goldens():
        golden(path).write_text(json.dumps(expected_import(path), indent=1) + "\n")
    for path in DRIVER_LEVEL:
        golden(path).write_text(json.dumps(expected_driver(path), indent=1) + "\n")


if __name__ == "__main__":
    main()
