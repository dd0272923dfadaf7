"""Talking to a Ceph cluster: connection options, the cluster's fingerprint, its health
during a run, and the pools, OSD flags and bench objects cephbench creates (each module that
creates something registers its undo function with ``resources.undo``)."""
