"""Talking to Kubernetes: kubectl (the one wrapper), the objects cephbench creates, why a claim
stays Pending or a pod fails, and the undo functions of what a run created there."""
