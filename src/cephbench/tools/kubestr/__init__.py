"""kubestr (github.com/kastenhq/kubestr): its ``fio`` output, read by ``cephbench import``."""
