"""The machines a benchmark runs from and across: an inventory (lab, Ceph discovery, a file,
a list), the system ssh to reach them, and remote daemons recorded for ``cephbench cleanup``.
"""
