"""``conf-set KEY=VALUE``: an option in the lab's ceph.conf, in [global] (and out of every
other section), for options a daemon reads only at start-up: the lab's OSDs are restarted and
checked to run with it, unless clients alone read it (each round's fresh fio picks it up).

Several conf-set changes share one file, on one side or across the two, so each writes and
restores its own key only: a change is written into the file as it is now (the others'
changes kept), and a restore rebuilds the file from the original with every *other* key that
differs from it now carried over (:func:`conf_restore`). Once the last one is restored the
file is the original byte for byte, which is what the end of an experiment checks."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from cephbench.errors import UsageError
from cephbench.tuning.changes import Change, check_value, key_value, option_key
from cephbench.tuning.restart import restart_lab_osds, verify_running
from cephbench.tuning.setting import Fields, Setting, Where

CLIENT_PREFIXES = ("rbd_", "client_", "rados_", "objecter_", "librados_")
"""Keys read by clients only: each round's fresh fio picks them up, nothing restarts."""


class ConfSet(Setting):
    form = "conf-set KEY=VALUE"

    @classmethod
    def parse(cls, words: list[str], text: str) -> Fields | None:
        if words[:1] != ["conf-set"]:
            return None
        key, value = key_value(text, words[1:])
        return option_key(text, key.replace(" ", "_")), value, ""

    @classmethod
    def describe(cls, change: Change) -> str:
        return shlex.join(["conf-set", f"{change.key}={change.value}"])

    def read(self, where: Where, change: Change) -> None:
        if not where.lab_dir:
            raise UsageError(
                f"'{change.text}' changes the lab's ceph.conf, and no lab is running",
                hint="use `ceph config set ...` on a real cluster",
            )
        lab = Path(where.lab_dir) / "ceph.conf"
        self.type = where.option(self.key).get("type", "str")
        self.original = {"conf": str(lab), "text": lab.read_text()}

    def value_error(self, where: Where, value: str) -> str | None:
        return check_value(where.option(self.key), value)

    @property
    def osds_read_it(self) -> bool:
        return not self.key.startswith(CLIENT_PREFIXES)

    def apply(self, where: Where, change: Change) -> None:
        conf = Path(self.original["conf"])
        conf.write_text(conf_with(conf.read_text(), self.key, change.value))

    def current(self, where: Where, change: Change) -> str | None:
        """The lab's ceph.conf as written (the running OSDs are checked by :meth:`verify`)."""
        return conf_get(Path(self.original["conf"]).read_text(), self.key)

    def verify(self, where: Where, change: Change) -> None:
        super().verify(where, change)
        if self.osds_read_it:
            verify_running(where.ceph(), self.target, self.key, self.type, change.value or "")

    def needs_restart(self, where: Where) -> bool:
        return self.osds_read_it

    def restore(self, where: Where) -> None:
        conf = Path(self.original["conf"])
        conf.write_text(conf_restore(conf.read_text(), self.original["text"], self.key))

    def shows_original(self, where: Where) -> tuple[Any, bool]:
        now = Path(self.original["conf"]).read_text()
        ok = key_lines(now, self.key) == key_lines(self.original["text"], self.key)
        return f"{self.key} = {conf_get(now, self.key)} in ceph.conf", ok

    def shown_original(self) -> str | None:
        return "the lab's ceph.conf as it was"

    def clean_up(self, where: Where) -> None:
        """Restored, the OSDs restarted to run with it again, then verified."""
        self.restore(where)
        if self.osds_read_it and where.conn:
            restart_lab_osds(where.conn, where.lab_dir)
        self.verify_restored(where)


def conf_with(text: str, key: str, value: str | None) -> str:
    """ceph.conf ``text`` with ``key`` set in [global] and removed from every other section
    (spaces and underscores are the same in Ceph option names). Pure."""
    norm = key.replace(" ", "_")
    out, section = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
            out.append(line)
            if section == "global" and value is not None:
                out.append(f"{norm} = {value}")
            continue
        name = stripped.split("=", 1)[0].strip().replace(" ", "_") if "=" in stripped else None
        if name == norm:
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def _name(line: str) -> str | None:
    """The option a ceph.conf line sets (spaces as underscores), None for any other line."""
    s = line.strip()
    if "=" not in s or s.startswith(("#", ";", "[")):
        return None
    return s.split("=", 1)[0].strip().replace(" ", "_")


def key_lines(text: str, key: str) -> list[tuple[str | None, str]]:
    """Every line of ceph.conf ``text`` that sets ``key``, with its section. Pure."""
    norm, section, out = key.replace(" ", "_"), None, []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            section = s[1:-1]
        elif _name(line) == norm:
            out.append((section, s))
    return out


def conf_restore(now: str, original: str, key: str) -> str:
    """ceph.conf ``original`` with every key but ``key`` that ``now`` sets differently carried
    over as :func:`conf_with` writes it: ``key`` restored, the other changes kept. With no other
    change left it is ``original`` exactly. Pure."""
    norm = key.replace(" ", "_")
    names = {n for text in (now, original) for n in map(_name, text.splitlines()) if n}
    out = original
    for name in sorted(names - {norm}):
        if key_lines(now, name) != key_lines(original, name):
            out = conf_with(out, name, conf_get(now, name))
    return out


def conf_get(text: str, key: str) -> str | None:
    """``key``'s value in ceph.conf ``text`` ([global] wins as :func:`conf_with` writes it)."""
    norm, section, found = key.replace(" ", "_"), None, None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("["):
            section = s.strip("[]")
        elif "=" in s and s.split("=", 1)[0].strip().replace(" ", "_") == norm:
            value = s.split("=", 1)[1].strip()
            if section == "global" or found is None:
                found = value
    return found
