"""``cephbench diagnose``: generate a short known load, read the cluster's own counters
before and after, and say where the performance goes, layer by layer, with evidence.

collect.py runs the probes (each registered like a tool, probes.py) inside a stored run;
counters.py, evidence.py, findings.py and budget.py are pure: recorded dumps in, findings
out, so the engine is tested on real recorded outputs without a cluster.
"""
