"""Kubernetes without a cluster: what cephbench builds for pods (container images) and how it
talks to a cluster; low in the layers so both the lab and the targets can use it."""
