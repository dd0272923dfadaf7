"""Capacity: the highest offered load a target takes with its tail latency under a target
(``cephbench capacity``), healthy or while the cluster recovers. ``search.py`` is the pure
search and stopping rule; ``steps.py`` runs one fixed-rate step; ``model.py`` the result."""
