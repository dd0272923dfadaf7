"""The cluster a command's connection options name: the running lab fills what they leave
out, else ``/etc/ceph/ceph.conf`` and ``client.admin``. Here, above ``ceph/`` (which knows
connections, not the lab) and below the targets and commands that resolve them."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from cephbench.ceph import compat
from cephbench.ceph.connection import (
    DEFAULT_CONF,
    DEFAULT_ID,
    DEFAULT_TIMEOUT,
    Connection,
    client_id,
)
from cephbench.ceph.tools import CephTools
from cephbench.errors import UsageError


def resolve(
    conf: str | None = None,
    user: str | None = None,
    keyring: str | None = None,
    cluster: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    tools: CephTools | None = None,
) -> Connection:
    """The connection the options ask for; the lab fills what they leave out, when one runs.
    ``tools`` (``--ceph-cli``) replace the lab's or this machine's. A client that cannot read
    the key it would use is told so here, before anything runs (``ceph/compat.py``)."""
    conn = _resolve(conf, user, keyring, cluster, timeout)
    if tools is not None:
        conn = replace(conn, tools=tools)
    compat.check(conn)
    return conn


def _resolve(
    conf: str | None, user: str | None, keyring: str | None, cluster: str | None, timeout: float
) -> Connection:
    from cephbench.lab.info import find_running  # the lab API (pydantic): not for --help

    client = client_id(user) if user else None
    lab = find_running() if conf is None and cluster is None else None
    if lab is not None:
        return Connection(
            conf=str(lab.conf_path),
            id=client or lab.client_name,
            keyring=keyring or (str(lab.keyring_path) if lab.keyring_path and not client else None),
            timeout=timeout,
            lab_dir=str(lab.dir),
            lab_hosts=lab.hosts,
            tools=lab.tools,
        )
    if conf is None and cluster is None:
        conf = DEFAULT_CONF
    if conf is not None and not Path(conf).is_file():
        raise UsageError(
            f"no Ceph configuration at {conf}",
            hint="give --conf PATH, or start a lab: cephbench lab up",
        )
    if keyring is not None and not os.access(keyring, os.R_OK):
        raise UsageError(
            f"cannot read keyring {keyring}", hint="check --keyring and its permissions"
        )
    return Connection(
        conf=conf, id=client or DEFAULT_ID, keyring=keyring, cluster=cluster, timeout=timeout
    )
