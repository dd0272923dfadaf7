"""A diagnosis as people read it: findings first (sorted by impact), then what was checked,
then the latency budget; as rich tables, Markdown, or the JSON document."""

from __future__ import annotations

import json
from typing import Any

from cephbench.tables.table import Table

COMPARED = {
    "device": "device_ms",
    "osd": "queued_ms",
}


def digest(f: dict[str, Any]) -> str:
    """The evidence in one line: the figure and the peers it was compared with."""
    ev = f.get("evidence", {})
    if "figures" in ev and "peers" in ev:
        key = COMPARED.get(f["layer"], "device_ms")
        if "osd bench" in ev.get("compared", ""):
            key = "bench_4k_iops"
        elif "subop" in ev.get("compared", ""):
            key = "subop_w_ms"
        own = ev["figures"].get(key)
        peers = ", ".join(f"{p} {v.get(key)}" for p, v in ev["peers"].items())
        return f"{key}: {f['component']} {own}; peers {peers}"
    if "mbit_per_s" in ev:
        own = ", ".join(f"{p} {v}" for p, v in ev["mbit_per_s"].items())
        peers = ev.get("peers_mbit_per_s")
        text = f"Mbit/s: {own}"
        if peers:
            text += "; peers " + ", ".join(f"{p} {v}" for p, v in peers.items())
        if ev.get("nominal_mbit_per_s"):
            text += f"; nominal {ev['nominal_mbit_per_s']}"
        return text
    return json.dumps(ev, sort_keys=True)[:200]


def tables(doc: dict[str, Any]) -> list[Table]:
    findings = doc["findings"]
    rows = tuple(
        (
            str(i),
            f["severity"],
            f["layer"],
            f["component"],
            f["summary"],
            digest(f),
            f["next_step"],
        )
        for i, f in enumerate(findings, 1)
    )
    out = [
        Table(
            ("#", "Severity", "Layer", "Component", "Finding", "Evidence", "Next step"),
            rows,
            title=f"Diagnosis of run {doc['run']}: {len(findings)} finding(s)",
            notes=() if findings else ("No finding: every check below was normal.",),
            align=("r", "l", "l", "l", "l", "l", "l"),
        ),
        Table(
            ("Layer", "Check", "Status", "Detail"),
            tuple(
                (c["layer"], c["check"], c["status"], c.get("detail", "")) for c in doc["checked"]
            ),
            title="Checked",
            align=("l", "l", "l", "l"),
        ),
    ]
    b = doc.get("budget") or {}
    if b.get("parts"):
        out.append(
            Table(
                ("Part", "ms", "Share"),
                tuple(
                    (
                        p["part"],
                        "n/a" if p["ms"] is None else f"{p['ms']:.3f}",
                        "n/a" if p["share"] is None else f"{p['share']:.0%}",
                    )
                    for p in b["parts"]
                ),
                title=f"Latency budget of a 4k write at QD1: {b['client_ms']:.3f} ms at the client",
                notes=(
                    "From the OSDs' counters over the QD1 writes alone (op_w_latency, "
                    "op_w_process_latency, BlueStore commit_lat) and dump_historic_ops.",
                ),
            )
        )
    elif b.get("note"):
        out.append(Table(("Latency budget",), ((b["note"],),), align=("l",)))
    return out


def changes_table(base: int, new: int, changes: dict[str, list[dict[str, Any]]]) -> Table:
    rows = []
    for what, label in (("appeared", "appeared"), ("went_away", "went away"), ("stayed", "stayed")):
        for f in changes[what]:
            rows.append((label, f["severity"], f["layer"], f["component"], f["summary"]))
    return Table(
        ("Change", "Severity", "Layer", "Component", "Finding"),
        tuple(rows),
        title=f"Findings of run {new} against run {base}",
        notes=() if rows else ("Neither diagnosis has a finding.",),
        align=("l", "l", "l", "l", "l"),
    )
