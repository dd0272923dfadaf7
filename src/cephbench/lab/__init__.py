"""The lab: a real, throwaway Ceph cluster on this machine, as plain processes.

The API the rest of cephbench uses::

    info = find_running()                     # LabInfo | None
    ensure_pool(info, "cb-rbd")               # True if created (and recorded)
    ceph_json(info, "osd", "tree")            # parsed `ceph ... -f json`
    subprocess env: {**os.environ, **info.env}  # ceph, rados, rbd, fio --ioengine=rbd
    remove_pool(info, "cb-rbd")               # only pools cephbench created

``up(LabSpec(...))``, ``down()``, ``status()``, ``restart_osd()``, ``stop_osd()`` back the
``cephbench lab`` commands.
"""

from .bootstrap import UpResult, up
from .ceph import ceph_json
from .errors import LabError
from .info import LabInfo, find_running
from .osd import restart_osd, stop_osd
from .paths import default_dir
from .pools import ensure_pool, remove_pool
from .spec import LabSpec
from .status import status
from .teardown import DownResult, down

__all__ = [
    "DownResult",
    "LabError",
    "LabInfo",
    "LabSpec",
    "UpResult",
    "ceph_json",
    "default_dir",
    "down",
    "ensure_pool",
    "find_running",
    "remove_pool",
    "restart_osd",
    "status",
    "stop_osd",
    "up",
]
