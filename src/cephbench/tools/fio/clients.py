"""fio's client/server output as results: each client's figures, and cephbench's aggregate.

``fio --client=A --client=B`` reports one ``client_stats`` entry per job (per clone, without
``group_reporting``) and client, named by the ``hostname`` and ``port`` it connected to, and
one "All clients" entry. That entry is not used: it has had wrong sums upstream, and is
missing with several job sections. Instead each client's entries are merged like clones into
the client's own results (with their ``host``), and the aggregate of a workload's direction
is computed here: IOPS, bandwidth, bytes and I/Os the sums of the clients' figures (floats
correctly rounded, ``math.fsum``: the clients add up to it exactly), latency means weighted by their samples and percentiles from
the merged json+ bins of every entry (parse.py, as for clones), runtime the longest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from cephbench.model import Result
from cephbench.tools.fio.parse import JobOutcome, job_outcome, options_of


def client_key(entry: dict) -> str:
    """How fio names the client an entry came from: ``hostname:port``."""
    return f"{entry.get('hostname', '')}:{entry.get('port', '')}"


def host_names(entries: list[dict], hosts: Mapping[str, str]) -> dict[str, str]:
    """Each client's name: as ``hosts`` maps its ``hostname:port``, else its hostname, or
    ``hostname:port`` where one hostname has several ports (servers on one machine)."""
    keys = list(dict.fromkeys(client_key(e) for e in entries))
    ports: dict[str, set[str]] = {}
    for e in entries:
        ports.setdefault(str(e.get("hostname", "")), set()).add(client_key(e))
    names = {}
    for key in keys:
        hostname = key.rsplit(":", 1)[0]
        names[key] = hosts.get(key) or (hostname if len(ports[hostname]) == 1 else key)
    return names


def per_client(
    outcomes: list[JobOutcome],
    grouped: dict[str, list[dict]],
    global_options: dict[str, str],
    hosts: Mapping[str, str],
    repeat: int,
    error_lines: list[str],
) -> list[JobOutcome]:
    """Each workload's results as the aggregate of its clients, each client's result under it."""
    names = host_names([e for clones in grouped.values() for e in clones], hosts)
    out = []
    for outcome in outcomes:
        entries = grouped[outcome.name]
        clients: dict[str, list[dict]] = {k: [] for k in hosts}  # in the order given
        for e in entries:
            clients.setdefault(client_key(e), []).append(e)
        clients = {k: own for k, own in clients.items() if own}
        theirs = [
            job_outcome(
                outcome.name,
                own,
                {**global_options, **options_of(own[0].get("job options"))},
                repeat,
                error_lines,
            )
            for own in clients.values()
        ]
        hosts_of = [names[k] for k in clients]
        results = tuple(
            aggregate(r, [c for o, h in zip(theirs, hosts_of, strict=True) for c in _op(o, r, h)])
            for r in outcome.results
        )
        out.append(replace(outcome, results=results))
    return out


def _op(outcome: JobOutcome, like: Result, host: str) -> list[Result]:
    return [replace(r, host=host) for r in outcome.results if r.op == like.op]


def aggregate(merged: Result, clients: list[Result]) -> Result:
    """The aggregate of one direction: ``merged`` (every entry merged like clones: latency
    exactly from the bins) with the clients' sums, and the clients under it."""
    if not clients:
        return merged
    return replace(
        merged,
        iops=_fsum([c.iops for c in clients]),
        bw_bytes_per_s=_fsum([c.bw_bytes_per_s for c in clients]),
        io_bytes=_isum([c.io_bytes for c in clients]),
        total_ios=_isum([c.total_ios for c in clients]),
        numjobs=clients[0].numjobs,
        clients=tuple(clients),
    )


def _fsum(values: list[float | None]) -> float | None:
    """The correctly rounded sum (``math.fsum``): the same float whatever the clients' order."""
    return None if any(v is None for v in values) else math.fsum(v for v in values if v is not None)


def _isum(values: list[int | None]) -> int | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)
