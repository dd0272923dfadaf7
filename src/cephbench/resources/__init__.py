"""What makes clean-up always possible: the undo registry (``undo.py``, one undo function per
kind of resource, ``cephbench cleanup``) and the interrupt shield (``shield.py``) that keeps a
Ctrl-C from cutting create-then-record or undo-then-mark in two."""
