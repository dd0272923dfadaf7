"""One setting of each kind an A/B experiment changes, read, written, put back and checked:
``ceph config`` (the database entry, and the value shown), ``ceph osd pool set``, a sysctl of
this machine, and the lab's ceph.conf for ``conf-set``. The verbs without the bookkeeping:
:class:`cephbench.tuning.apply.Settings` switches sides with them, and ``cephbench cleanup``
reverts a killed experiment with them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, UsageError
from cephbench.tuning.changes import Change, same_value


def config_state(conn: Connection, who: str, key: str) -> dict[str, Any]:
    """``who``'s own entry for ``key`` in the config database (None: none), the database
    entry ``who`` gets ``key`` from (None: none, the default), and what ``ceph config get``
    shows."""
    state = config_entry(conn, who, key)
    return {**state, "effective": config_get(conn, who, key)}


def config_entry(conn: Connection, who: str, key: str) -> dict[str, Any]:
    """One ``ceph config get WHO -f json``: the entry ``who`` gets ``key`` from (the most
    specific of global, its type, itself), and whether it is ``who``'s own. Two states with
    the same entry show the same value, so a restore is verified in one call."""
    entry = (ceph_json(conn, "config", "get", who) or {}).get(key)
    if entry is None:
        return {"explicit": None, "entry": None}
    own = entry.get("section") == who and not entry.get("mask")
    return {
        "explicit": str(entry["value"]) if own else None,
        "entry": {k: entry.get(k) for k in ("value", "section", "mask")},
    }


def config_get(conn: Connection, who: str, key: str) -> str:
    return ceph(conn, "config", "get", who, key).stdout.strip()


def pool_get(conn: Connection, pool: str, key: str) -> str:
    """A pool setting's value as text (``true``, ``3``, ``lz4``)."""
    result = ceph(conn, "osd", "pool", "get", pool, key, "-f", "json", check=False)
    if result.returncode != 0:
        err = result.last_error_line()
        if "ENOENT" in err and "pool" in err and "not set" not in err:
            raise UsageError(f"there is no pool {pool}", hint="ceph osd pool ls lists them")
        if "not set" in err:
            raise UsageError(
                f"{key} is not set on pool {pool}: cephbench could not put it back unset",
                hint="set it to its current default first",
            )
        raise UsageError(f"{key} is not a pool setting ({err})", hint="ceph osd pool get POOL all")
    from cephbench.ceph.output import parse_json

    value = parse_json(("osd", "pool", "get"), result.stdout).get(key)
    return str(value).lower() if isinstance(value, bool) else str(value)


def json_type(text: str) -> str:
    if text in ("true", "false"):
        return "bool"
    if re.fullmatch(r"-?\d+", text):
        return "int"
    try:
        float(text)
        return "float"
    except ValueError:
        return "str"


def pool_value_error(old: str, value: str) -> str | None:
    kind = json_type(old)
    if kind == "bool" and value.lower() not in ("true", "false", "1", "0", "yes", "no"):
        return "the pool setting is a bool: true or false"
    if kind == "int" and not re.fullmatch(r"-?\d+", value):
        return f"the pool setting is an integer (now {old})"
    if kind == "float" and json_type(value) not in ("int", "float"):
        return f"the pool setting is a number (now {old})"
    return None


def sysctl_value_error(key: str, old: str | None, value: str) -> str | None:
    """Why ``value`` cannot replace ``old`` (a sysctl of N integers takes N integers)."""
    words, new = (old or "").split(), value.split()
    if not words or not all(re.fullmatch(r"-?\d+", w) for w in words):
        return None
    if len(new) != len(words) or not all(re.fullmatch(r"-?\d+", w) for w in new):
        return f"{key} takes {len(words)} integer(s), like '{' '.join(words)}'"
    return None


def check_hosts(key: str, got: dict[str, str], want: dict[str, str]) -> None:
    """Every host shows the value it should (sysctls read back with tabs: words compared)."""
    wrong = [f"{h} shows {got[h]!r}" for h in want if got[h].split() != want[h].split()]
    if wrong:
        raise CephbenchError(
            f"sysctl {key} is not as cephbench set it: {'; '.join(wrong)}",
            hint="set it by hand there; `cephbench cleanup` tries again",
        )


def sysctl_path(key: str) -> Path:
    return Path("/proc/sys") / key.replace(".", "/")


def sysctl_get(key: str) -> str:
    path = sysctl_path(key)
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        raise UsageError(f"this host has no sysctl {key}", hint="sysctl -a lists them") from None
    except OSError as e:
        raise UsageError(f"cannot read sysctl {key}: {e.strerror}") from None


def sysctl_set(key: str, value: str) -> None:
    try:
        sysctl_path(key).write_text(value + "\n")
    except OSError as e:
        raise CephbenchError(
            f"setting sysctl {key} = {value} failed: {e.strerror}",
            hint="cephbench ab needs root for sysctl changes",
        ) from None


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


def apply_change(conn: Connection | None, change: Change, original: dict[str, Any]) -> None:
    if change.kind == "config":
        assert conn is not None and change.value is not None
        ceph(conn, "config", "set", change.target, change.key, change.value)
    elif change.kind == "config_rm":
        assert conn is not None
        ceph(conn, "config", "rm", change.target, change.key)
    elif change.kind == "pool":
        assert conn is not None and change.value is not None
        ceph(conn, "osd", "pool", "set", change.target, change.key, change.value)
    elif change.kind == "sysctl":
        sysctl_set(change.key, change.value or "")
    else:
        path = Path(original["conf"])
        path.write_text(conf_with(original["text"], change.key, change.value))


def current(conn: Connection | None, change: Change, original: dict[str, Any]) -> str | None:
    """What the setting ``change`` sets shows now (None: ``config rm``'d, no entry; for
    ``conf-set``, the lab's ceph.conf as written; the running OSDs are checked apart)."""
    if change.kind == "config":
        assert conn is not None
        return config_get(conn, change.target, change.key)
    if change.kind == "config_rm":
        assert conn is not None
        return config_entry(conn, change.target, change.key)["explicit"]
    if change.kind == "pool":
        assert conn is not None
        return pool_get(conn, change.target, change.key)
    if change.kind == "sysctl":
        return sysctl_get(change.key)
    return conf_get(Path(original["conf"]).read_text(), change.key)


def restore_slot(
    conn: Connection | None, family: str, target: str, key: str, original: dict[str, Any]
) -> None:
    if family == "config":
        assert conn is not None
        if original["explicit"] is None:
            ceph(conn, "config", "rm", target, key)
        else:
            ceph(conn, "config", "set", target, key, original["explicit"])
    elif family == "pool":
        assert conn is not None
        ceph(conn, "osd", "pool", "set", target, key, original["value"])
    elif family == "sysctl":
        sysctl_set(key, original["value"])
    else:
        Path(original["conf"]).write_text(original["text"])


def verify_restored(
    conn: Connection | None,
    family: str,
    target: str,
    key: str,
    original: dict[str, Any],
    kind: str = "str",
) -> None:
    """The setting shows its original value again (``ceph config get``...); else an error."""
    if family == "config":
        assert conn is not None
        if "entry" in original:  # the same database entry (or none): the same value shown
            state = config_entry(conn, target, key)
            ok = state["entry"] == original["entry"]
            got = (state["entry"] or {}).get("value", "the default")
        else:
            state = config_state(conn, target, key)
            ok = (
                state["explicit"] == original["explicit"]
                and state["effective"] == original["effective"]
            )
            got = state["effective"]
    elif family == "pool":
        assert conn is not None
        got = pool_get(conn, target, key)
        ok = same_value(kind, got, original["value"])
    elif family == "sysctl":
        got = sysctl_get(key)
        ok = got.split() == original["value"].split()
    else:
        got = Path(original["conf"]).read_text()
        ok = got == original["text"]
        got = "a different ceph.conf"
    if not ok:
        raise CephbenchError(
            f"{family} {target} {key} was not restored: it shows {got!r}, not {shown_original(original)!r}",
            hint="set it back by hand; `cephbench cleanup` tries again",
        )


def shown_original(original: dict[str, Any]) -> str | None:
    if "hosts" in original:
        from cephbench.tuning.host_sysctl import shown

        return shown(original["hosts"])
    if "effective" in original:
        return original["effective"]
    if "text" in original:
        return "the lab's ceph.conf as it was"
    return original.get("value")


def running_value(conn: Connection, daemon: str, key: str) -> str | None:
    """What ``daemon`` runs with (``ceph config show``); None while a daemon just started has
    not reported its configuration yet (ENOENT for a few seconds)."""
    result = ceph(conn, "config", "show", daemon, key, check=False)
    if result.returncode != 0 and "ENOENT" in result.last_error_line():
        return None
    if result.returncode != 0:  # anything else: the ordinary error
        return ceph(conn, "config", "show", daemon, key).stdout.strip()
    return result.stdout.strip()


def osd_section(who: str) -> bool:
    return who == "osd" or who.startswith("osd.")


def osd_names(conn: Connection) -> list[str]:
    return [f"osd.{i}" for i in ceph_json(conn, "osd", "ls") or []]
