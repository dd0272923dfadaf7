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

from typing import TYPE_CHECKING

from cephbench.registry import lazy_api

if TYPE_CHECKING:
    from cephbench.lab.bootstrap import UpResult, up
    from cephbench.lab.ceph import ceph_json
    from cephbench.lab.errors import LabError
    from cephbench.lab.info import LabInfo, find_running
    from cephbench.lab.k8s_conf import K8sInfo
    from cephbench.lab.lab_pools import ensure_pool, remove_pool
    from cephbench.lab.osd import restart_osd, stop_osd
    from cephbench.lab.paths import default_dir
    from cephbench.lab.spec import LabSpec
    from cephbench.lab.status_view import status
    from cephbench.lab.teardown import DownResult, down

_WHERE = {
    "UpResult": "cephbench.lab.bootstrap",
    "up": "cephbench.lab.bootstrap",
    "ceph_json": "cephbench.lab.ceph",
    "LabError": "cephbench.lab.errors",
    "LabInfo": "cephbench.lab.info",
    "find_running": "cephbench.lab.info",
    "K8sInfo": "cephbench.lab.k8s_conf",
    "ensure_pool": "cephbench.lab.lab_pools",
    "remove_pool": "cephbench.lab.lab_pools",
    "restart_osd": "cephbench.lab.osd",
    "stop_osd": "cephbench.lab.osd",
    "default_dir": "cephbench.lab.paths",
    "LabSpec": "cephbench.lab.spec",
    "status": "cephbench.lab.status_view",
    "DownResult": "cephbench.lab.teardown",
    "down": "cephbench.lab.teardown",
}
"""Where each name of the API lives: imported on first use (PEP 562), so that a command which
needs one part (a run's connection to the lab: ``lab.connect``, ``lab.info``) does not load the
others (``lab up``'s bootstrap, Kubernetes, pydantic's models)."""


__getattr__ = lazy_api(__name__, _WHERE)


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
