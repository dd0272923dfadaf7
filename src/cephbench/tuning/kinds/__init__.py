"""The kinds of setting an A/B experiment changes, one module each, one class each (a
:class:`cephbench.tuning.setting.Setting`), registered in :mod:`cephbench.tuning.settings`."""
