"""The probe that reads the cluster's configuration database (``ceph config dump``): what an
admin set and may have forgotten (debug levels raised for a support case, a cache turned
off). Read in the cluster probe's first batch (:attr:`Probe.reads`), so it costs no extra
round trip; the misconfiguration rules (:mod:`cephbench.diagnose.rules.misconfig`) judge it.

Only the database: a daemon's own ceph.conf or a ``tell ... injectargs`` is not seen here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.tools.base import Step

DUMP = ("config", "dump")


def entries(dump: Any) -> list[dict[str, str]]:
    """Each entry of ``ceph config dump -f json`` as {section, name, value} (pure)."""
    out = []
    for e in dump if isinstance(dump, list) else []:
        if isinstance(e, dict) and e.get("name"):
            out.append(
                {
                    "section": str(e.get("section", "")),
                    "name": str(e["name"]),
                    "value": str(e.get("value", "")),
                }
            )
    return out


class ConfigDb(Probe):
    """The configuration database's entries, into ``evidence["config_db"]``."""

    name = "config-db"
    reads = (DUMP,)

    def run(self, session: Session) -> Iterator[Step]:
        [(step, dump)] = session.read(DUMP)
        if step is not None:
            yield step
        session.evidence["config_db"] = entries(dump)
