"""cephbench: benchmark Ceph and block storage, keep every result, compare with statistics."""

__version__ = "0.1.0"
