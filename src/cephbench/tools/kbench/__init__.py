"""kbench (github.com/yasker/kbench): read by ``cephbench import``."""
