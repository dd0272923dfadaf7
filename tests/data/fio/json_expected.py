"""Expected figures of the published fio JSON outputs in the corpus, computed independently of
cephbench's parser (plain ``json``, fio's own field meanings), for test_fio_corpus.py.

Run from anywhere: ``python tests/data/fio/json_expected.py``. It writes ``<name>.expected.json``
beside every corpus file whose ``<name>.source.md`` says ``Shape: json``. fio's units, per its
documentation and the fields each version prints: ``*_ns`` latencies in ns (fio 3.x), plain
``lat``/``clat``/``slat`` in µs (fio 2.x); ``bw_bytes`` in B/s, else ``bw`` in KiB/s; fio 2.x
``io_bytes`` in KiB (fio 3.x prints ``io_kbytes`` beside a byte count).
"""

import json
import re
from pathlib import Path

HERE = Path(__file__).parent
DIRECTIONS = ("read", "write", "trim")


def documents(text: str) -> list[dict]:
    """Every complete JSON object that holds "fio version", each once."""
    found, decoder = [], json.JSONDecoder()
    for m in re.finditer(r'"fio version"', text):
        start = text.rfind("{", 0, m.start())
        try:
            doc, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if doc not in found:
            found.append(doc)
    return found


def latency(d: dict, kind: str) -> tuple[dict, float] | None:
    if f"{kind}_ns" in d:  # fio < 3.14 prints no "N": then all-zero figures mean none
        s = d[f"{kind}_ns"]
        return (s, 1000.0) if s.get("N", s["min"] or s["max"] or s["mean"]) else None
    if kind in d:
        s = d[kind]
        return (s, 1.0) if (s.get("N", 1) and (s["min"] or s["max"] or s["mean"])) else None
    return None


def figures(op: str, d: dict) -> dict:
    lat, clat, slat = (latency(d, k) for k in ("lat", "clat", "slat"))
    main = lat or clat
    out = {
        "op": op,
        "iops": float(d["iops"]),
        "bw_bytes_per_s": float(d["bw_bytes"] if "bw_bytes" in d else d["bw"] * 1024),
        "io_bytes": d["io_bytes"] if "io_kbytes" in d else d["io_bytes"] * 1024,
        "runtime_s": d["runtime"] / 1000,
        "total_ios": d.get("total_ios"),
        "lat_mean_us": main[0]["mean"] / main[1] if main else None,
        "clat_mean_us": clat[0]["mean"] / clat[1] if clat else None,
        "slat_mean_us": slat[0]["mean"] / slat[1] if slat else None,
        "lat_max_us": main[0]["max"] / main[1] if main else None,
        "lat_p99_us": None,
        "lat_kind": ("lat" if lat else "clat") if main else None,
    }
    for kind, stat in (("lat", lat), ("clat", clat)):
        if stat and "percentile" in stat[0]:
            p99 = [v for p, v in stat[0]["percentile"].items() if abs(float(p) - 99.0) < 1e-9]
            out.update(lat_kind=kind, lat_p99_us=p99[0] / stat[1] if p99 else None)
            break
    return out


def run(doc: dict) -> dict:
    jobs = doc.get("jobs") or [
        j for j in doc.get("client_stats", []) if j["jobname"] != "All clients"
    ]
    workloads = []
    for job in jobs:
        results = [
            figures(op, job[op])
            for op in DIRECTIONS
            if op in job and (job[op].get("total_ios") or job[op].get("io_bytes"))
        ]
        failure = f"fio error {job['error']}" if job.get("error") else None
        workloads.append(
            {"name": job["jobname"], "failure": failure, "results": [] if failure else results}
        )
    return {"tool_version": doc["fio version"], "workloads": workloads}


def main() -> None:
    for note in sorted(HERE.glob("*/*.source.md")):
        if not re.search(r"^Shape: json", note.read_text(), re.M):
            continue
        if "record_clients.py" in note.read_text():  # fio client/server: written there
            continue
        stem = note.name[: -len(".source.md")]
        (source,) = [
            p
            for p in note.parent.glob(stem + ".*")
            if not p.name.endswith((".source.md", ".expected.json"))
        ]
        runs = [run(d) for d in documents(source.read_text())]
        out = {
            "_how": "computed by json_expected.py from fio's own fields, not by cephbench",
            "kind": "json",
            "runs": runs,
        }
        note.with_name(stem + ".expected.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
