"""The lab: a real, throwaway Ceph cluster on this machine, as plain processes.

The API the rest of cephbench uses::

    info = find_running()                     # LabInfo | None
    ensure_pool(info, "cb-rbd")               # True if created (and recorded)
    ceph_json(info, "osd", "tree")            # parsed `ceph ... -f json`
    subprocess env: {**os.environ, **info.env}  # ceph, rados, rbd, fio --ioengine=rbd
    remove_pool(info, "cb-rbd")               # only pools cephbench created
    info.k8s                                  # K8sInfo with ``lab up --k8s``, else None

``up(LabSpec(...))``, ``down()``, ``status()``, ``restart_osd()``, ``stop_osd()`` back the
``cephbench lab`` commands.
"""

from cephbench.lab.bootstrap import UpResult, up
from cephbench.lab.ceph import ceph_json
from cephbench.lab.errors import LabError
from cephbench.lab.info import LabInfo, find_running
from cephbench.lab.k8s_conf import K8sInfo
from cephbench.lab.lab_pools import ensure_pool, remove_pool
from cephbench.lab.osd import restart_osd, stop_osd
from cephbench.lab.paths import default_dir
from cephbench.lab.spec import LabSpec
from cephbench.lab.status import status
from cephbench.lab.teardown import DownResult, down

__all__ = [
    "DownResult",
    "K8sInfo",
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
