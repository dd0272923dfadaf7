"""Record fio's client/server mode on loopback: ``python tests/data/fio/record_clients.py``.

Two ``fio --server=127.0.0.1,PORT --daemonize=PIDFILE`` on free ports, then one
``fio --client=127.0.0.1,P1 --client=127.0.0.1,P2 --output-format=json+ JOB`` per entry below;
fio's whole stdout goes to ``<version>/<name>.json`` as printed (``<host>`` lines included).
``<name>.expected.json`` is computed here from fio's own fields, independently of cephbench's
parser: per client (hostname and port) and for all clients together (fio's "All clients"
entry left out), percentiles from the json+ latency bins by fio's rule (the smallest bin whose
cumulative count reaches p % of the samples); a client with one entry is checked against the
percentiles fio printed for it.
"""

import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
OPS = ("read", "write", "trim")
JOBS = {
    # one job file sent to both servers: the shape people use with a host list
    "clients2_randread": """[global]
filename={data}/f
size=32m
ioengine=libaio
direct=1
runtime=1
time_based
lat_percentiles=1
[c2_randread]
rw=randread
bs=4k
iodepth=4
""",
    # two clones per client (no group_reporting), both directions; psync with iodepth=2
    # makes each server print a note, which fio's client prefixes with <hostname>
    "clients2_randrw_numjobs2": """[global]
filename={data}/f
size=32m
ioengine=psync
iodepth=2
direct=1
runtime=1
time_based
[c2_randrw]
rw=randrw
rwmixread=70
bs=4k
numjobs=2
""",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, pidfile: Path) -> None:
    argv = ["fio", f"--server=127.0.0.1,{port}", f"--daemonize={pidfile}"]
    subprocess.run(argv, check=True, capture_output=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"fio server on port {port} did not start")


def documents_lines(text: str) -> dict:
    return json.loads("\n".join(ln for ln in text.splitlines() if not ln.startswith("<")))


def stat(d: dict, kind: str) -> dict | None:
    s = d.get(f"{kind}_ns")
    return s if isinstance(s, dict) and s.get("N", 0) > 0 else None


def p_from_bins(bins: dict[int, int], p: float) -> float:
    total = sum(bins.values())
    need, acc = math.ceil(total * p / 100), 0
    for value in sorted(bins):
        acc += bins[value]
        if acc >= need:
            return value / 1000.0
    raise ValueError("empty bins")


def figures(op: str, sections: list[dict]) -> dict:
    """One direction over several fio entries (a client's clones, or every client's)."""
    out = {
        "op": op,
        "iops": sum(s["iops"] for s in sections),
        "bw_bytes_per_s": float(sum(s["bw_bytes"] for s in sections)),
        "io_bytes": sum(s["io_bytes"] for s in sections),
        "runtime_s": max(s["runtime"] for s in sections) / 1000,
        "total_ios": sum(s["total_ios"] for s in sections),
    }
    for kind in ("lat", "clat", "slat"):
        stats = [st for s in sections if (st := stat(s, kind)) is not None]
        if len(stats) < len(sections):  # not recorded (psync has no submission latency)
            out[f"{kind}_mean_us"] = None
            continue
        n = sum(st["N"] for st in stats)
        out[f"{kind}_mean_us"] = sum(st["mean"] * st["N"] for st in stats) / n / 1000
        if kind == "lat":
            out["lat_max_us"] = max(st["max"] for st in stats) / 1000
    kind = "lat" if "percentile" in sections[0]["lat_ns"] else "clat"
    bins: dict[int, int] = {}
    for s in sections:
        for value, count in s[f"{kind}_ns"]["bins"].items():
            bins[int(value)] = bins.get(int(value), 0) + count
    out["lat_p99_us"] = p_from_bins(bins, 99.0)
    out["lat_kind"] = kind
    if len(sections) == 1:  # fio's own figure for one entry: the bins' rule agrees with it
        printed = sections[0][f"{kind}_ns"]["percentile"]["99.000000"] / 1000
        assert printed == out["lat_p99_us"], (printed, out["lat_p99_us"])
    return out


def expected(doc: dict) -> dict:
    entries = [c for c in doc["client_stats"] if c["jobname"] != "All clients"]
    names = list(dict.fromkeys(e["jobname"] for e in entries))
    clients = list(dict.fromkeys(f"{e['hostname']}:{e['port']}" for e in entries))
    workloads, per_client = [], {}
    for name in names:
        mine = [e for e in entries if e["jobname"] == name]
        results = [figures(op, [e[op] for e in mine]) for op in OPS if mine[0][op]["total_ios"] > 0]
        workloads.append({"name": name, "failure": None, "results": results})
        for client in clients:
            theirs = [e for e in mine if f"{e['hostname']}:{e['port']}" == client]
            per_client.setdefault(client, []).append(
                {
                    "name": name,
                    "entries": len(theirs),
                    "results": [
                        figures(op, [e[op] for e in theirs])
                        for op in OPS
                        if theirs[0][op]["total_ios"] > 0
                    ],
                }
            )
    return {
        "_how": "computed by record_clients.py from fio's own fields (not by cephbench): sums, "
        "N-weighted means, p99 from the merged json+ bins; fio's 'All clients' entry left out",
        "kind": "json",
        "runs": [{"tool_version": doc["fio version"], "workloads": workloads}],
        "clients": per_client,
    }


def main() -> None:
    version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout
    folder = HERE / version.strip().removeprefix("fio-")
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        ports, pids = [free_port(), free_port()], []
        try:
            for i, port in enumerate(ports):
                start_server(port, Path(tmp) / f"server{i}.pid")
                pids.append(int((Path(tmp) / f"server{i}.pid").read_text()))
            for name, job in JOBS.items():
                path = Path(tmp) / "job.fio"
                path.write_text(job.format(data=tmp))
                clients = [f"--client=127.0.0.1,{p}" for p in ports]
                proc = subprocess.run(
                    ["fio", *clients, "--output-format=json+", str(path)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                (folder / f"{name}.json").write_text(proc.stdout)
                out = expected(documents_lines(proc.stdout))
                (folder / f"{name}.expected.json").write_text(json.dumps(out, indent=1) + "\n")
                print(f"{name}: ports {ports}", file=sys.stderr)
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGTERM)


if __name__ == "__main__":
    main()
