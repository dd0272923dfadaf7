"""Whether this machine's Ceph client can talk to the cluster at all, said before anything
else: a client must be of a release that can read the cluster's keys and authenticate to it.

Tentacle made a new key type (``AgA...``, AES256KRB5); Pacific's client cannot parse such a
keyring ("Malformed input") and, even given an old-type key, cannot authenticate to a
Tentacle cluster. In-process librados turns either into a plain connection error, and the
``ceph`` CLI into "error connecting to the cluster" after its timeout: the user would be told
the cluster is unreachable. So the keyring is read first (a file, no process): a key of a type
the local client predates is one line naming both releases and the way out.
"""

from __future__ import annotations

import base64
import binascii
import configparser
import re
import struct
from pathlib import Path

from cephbench.ceph.connection import Connection
from cephbench.ceph.tools import CephTools, ClientVersion
from cephbench.errors import CephbenchError

#: The first release whose clients read each key type (1: AES, every release).
KEY_TYPE_RELEASE = {2: (20, "tentacle")}
_KEY_LINE = re.compile(r"^\s*key\s*=\s*(\S+)\s*$")


class ClientTooOld(CephbenchError):
    """This machine's Ceph client is of a release older than the cluster's keys."""


def key_type(key: str) -> int | None:
    """The type of a cephx secret (its first two bytes, little endian); None if not one."""
    try:
        raw = base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError):
        return None
    return struct.unpack("<H", raw[:2])[0] if len(raw) >= 12 else None


def keyring_key(text: str, entity: str) -> str | None:
    """The ``key`` of ``[entity]`` in keyring ``text`` (pure)."""
    section = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
        elif section == entity and (m := _KEY_LINE.match(line)):
            return m.group(1)
    return None


def keyring_path(conn: Connection) -> Path | None:
    """The keyring the client would read: ``--keyring``, else the conf's ``keyring`` for the
    client, else the default paths that exist."""
    if conn.keyring:
        return Path(conn.keyring)
    cluster = conn.cluster or "ceph"
    conf = Path(conn.conf) if conn.conf else Path(f"/etc/ceph/{cluster}.conf")
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(conf.read_text())
    except (OSError, configparser.Error, UnicodeDecodeError):
        parser = configparser.RawConfigParser()
    for section in (f"client.{conn.id}", "client", "global"):
        if parser.has_option(section, "keyring"):
            value = parser.get(section, "keyring").replace("$cluster", cluster)
            if "$" not in value:
                return Path(value)
    for candidate in (
        f"/etc/ceph/{cluster}.client.{conn.id}.keyring",
        f"/etc/ceph/{cluster}.keyring",
        "/etc/ceph/keyring",
    ):
        if Path(candidate).is_file():
            return Path(candidate)
    return None


def local_client() -> ClientVersion | None:
    """This machine's ``ceph`` client; None if it is not installed or says no version."""
    try:
        return CephTools().version()
    except CephbenchError:
        return None


_WHAT = {
    "ceph": "Ceph client",
    "fio": "Ceph libraries (fio's rbd and rados engines)",
    "ceph-fuse": "ceph-fuse",
}


def check(conn: Connection, program: str = "ceph") -> None:
    """Raise :class:`ClientTooOld` when ``program``, run on this machine, cannot read the key
    it would use (nothing to check when the connection's tools reach it elsewhere: a release
    root's or the cluster's own). This machine's ``ceph --version`` stands for its libraries:
    Debian installs them of one release."""
    if conn.tools.reaches(program):
        return
    path = keyring_path(conn)
    try:
        key = keyring_key(path.read_text(), f"client.{conn.id}") if path else None
    except (OSError, UnicodeDecodeError):
        return  # the client says why it cannot read it
    needs = KEY_TYPE_RELEASE.get(key_type(key) or 1) if key else None
    if needs is None:
        return
    client = local_client()
    if client is None or client.major >= needs[0]:
        return
    version, name = client.version, client.release
    raise ClientTooOld(
        f"this machine's {_WHAT.get(program, program)} {'are' if program == 'fio' else 'is'} "
        f"{version} ({name.capitalize()}), and client.{conn.id}'s "
        f"key in {path} is of {needs[1].capitalize()}'s type, which {name.capitalize()} cannot "
        f"read: the cluster is {needs[1].capitalize()} {needs[0]} or newer",
        hint=(
            'reach the cluster\'s own tools: --ceph-cli "cephadm shell --" (cephadm), '
            '--ceph-cli "kubectl -n rook-ceph exec deploy/rook-ceph-tools --" (Rook), '
            f"or install a {needs[1].capitalize()} ceph-common here"
            if program == "ceph"
            else f"run the load where a {needs[1].capitalize()} client is (--pods, or "
            f"--clients on its hosts), or install {needs[1].capitalize()}'s librbd1 and "
            "librados2 here"
        ),
    )
