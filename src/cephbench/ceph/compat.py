"""Whether this machine's Ceph client can talk to the cluster at all, said before anything
else: a client must be of a release that can read the cluster's keys and authenticate to it.

Tentacle made a new key type (``AgA...``, AES256KRB5); Pacific's client cannot parse such a
keyring ("Malformed input") and, even given an old-type key, cannot authenticate to a
Tentacle cluster. In-process librados turns either into a plain connection error, and the
``ceph`` CLI into "error connecting to the cluster" after its timeout: the user would be told
the cluster is unreachable. So the keyring is read first (a file, no process): a key of a type
the local client predates is one line naming both releases and the way out.

A client that authenticates may still be unable to read the OSD map: a cluster that uses a
newer release's placement features (Reef's ``pg-upmap-primary``; the map's
``min_compat_client`` names the release they need) sends an older client's ops for those
PGs to the wrong OSD, and they hang. Measured on the Reef lab with one ``pg-upmap-primary``
mapping: this machine's Pacific ``rados bench`` wrote 14 objects and then stalled, ``rados ls``
of that pool was still waiting after 40 s, while ``ceph -s`` answered. :func:`check_features`
reads the map before the run and says so instead. The map's ``require_min_compat_client``
(what the admins allow) is not such a limit by itself: set to ``reef``, with no Reef feature
in use, the Pacific client read and wrote as before.
"""

from __future__ import annotations

import base64
import binascii
import configparser
import re
import struct
from pathlib import Path
from typing import Any

from cephbench.ceph.commands import ceph_json
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


#: Each release's major version, from Jewel on (the OSD map's ``min_compat_client`` names one).
RELEASE_MAJOR = {
    "jewel": 10,
    "kraken": 11,
    "luminous": 12,
    "mimic": 13,
    "nautilus": 14,
    "octopus": 15,
    "pacific": 16,
    "quincy": 17,
    "reef": 18,
    "squid": 19,
    "tentacle": 20,
}


def features_needed(osd_dump: dict[str, Any]) -> tuple[int, str, str] | None:
    """The release the OSD map's features in use need of a client (pure): its major, its
    name, and what uses them as far as the map says; None when the map names none we know."""
    need = str(osd_dump.get("min_compat_client") or "")
    if need not in RELEASE_MAJOR:
        return None
    primaries = osd_dump.get("pg_upmap_primaries") or []
    why = f"{len(primaries)} pg-upmap-primary mapping(s)" if primaries else "features"
    return RELEASE_MAJOR[need], need, why


_WHAT = {
    "ceph": "Ceph client",
    "fio": "Ceph libraries (fio's rbd and rados engines)",
    "ceph-fuse": "ceph-fuse",
    "rados": "rados (rados bench)",
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


def check_features(conn: Connection, program: str) -> None:
    """Raise :class:`ClientTooOld` when ``program``, run on this machine, is of a release
    older than the features the cluster's OSD map uses (its I/O to some PGs would hang);
    nothing to check when the connection's tools reach it elsewhere."""
    if conn.tools.reaches(program):
        return
    client = local_client()
    if client is None:
        return
    try:
        osd_dump = ceph_json(conn, "osd", "dump") or {}
    except CephbenchError:
        return  # the run's own checks say why the cluster does not answer
    if (refused := cannot_read(osd_dump, client, program)) is not None:
        raise refused


def cannot_read(
    osd_dump: dict[str, Any], client: ClientVersion, program: str
) -> ClientTooOld | None:
    """The error for ``program`` of ``client``'s release on a cluster of ``osd_dump`` (pure):
    None when it reads every feature the map uses."""
    needed = features_needed(osd_dump)
    if needed is None or client.major >= needed[0]:
        return None
    major, name, why = needed
    return ClientTooOld(
        f"this machine's {_WHAT.get(program, program)} {'are' if program == 'fio' else 'is'} "
        f"{client.version} ({client.release.capitalize()}), and the cluster's OSD map uses "
        f"{why} that only {name.capitalize()} {major} and newer clients read "
        f"(min_compat_client {name}): its I/O to those PGs would hang",
        hint=(
            f'reach the cluster\'s own {program}: --ceph-cli "cephadm shell --" (cephadm), or '
            f"install {name.capitalize()}'s ceph-common here"
            if program == "rados"
            else f"run the load where a {name.capitalize()} client is (--pods, or --clients "
            f"on its hosts), or install {name.capitalize()}'s "
            + ("ceph-fuse" if program == "ceph-fuse" else "librbd1 and librados2")
            + " here"
        ),
    )
