# cephbench: the two commands a new machine needs are `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the project runs: fio (with the rbd and rados engines), Ceph Pacific, iperf3,
# what the lab and the device guard use (uuidgen, blkid/lsblk/losetup, ip/tc, mkfs.ext4), and
# chromium, which the report tests render HTML reports in; openssh-server for the lab's hosts
# (`lab up --ssh`); iputils-ping for the network suite's RTT and MTU checks; ceph-mds and
# ceph-fuse for CephFS (`lab up --cephfs`, the cephfs: target); rbd-fuse, etcd, containerd, runc
# and the CNI plugins for the lab's Kubernetes (`lab up --k8s`); mmdebstrap builds the roots
# of the newer Ceph releases (`lab up --release reef|tentacle`).
DEB_PKGS := fio iperf3 iputils-ping ceph-mon ceph-osd ceph-mgr ceph-common uuid-runtime util-linux \
            iproute2 e2fsprogs fdisk python3-venv chromium openssh-server \
            ceph-mds ceph-fuse rbd-fuse etcd-server containerd runc containernetworking-plugins \
            mmdebstrap
DEMO_DIR := demo-output

.PHONY: install deps venv test test-fast lint typecheck demo clean k8s releases help

install: deps venv

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

venv: $(BIN)/cephbench

$(BIN)/cephbench: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	@touch $@

# Everything: lint, format, types and every test tier (a tier is a folder: tests/unit is
# `pure`, tests/fio `fio`, tests/lab `lab`, tests/k8s `k8s`, marked so by tests/conftest.py):
# the lab tests (one at a time, sharing the session's labs; the longest tier) in the
# background from the start, alongside lint and types, then the pure tier (two workers: it is
# CPU alone), the fio tier, the Kubernetes tier (its binaries built first if missing) and the
# release tier (tests/releases: Reef and Tentacle labs side by side, two workers, their roots
# built first if missing),
# each in its own pytest; the lab's report is printed when all have ended, and any failure fails.
# The lab tier's `quiet` tests (they compare OSDs that share this machine's one disk, which the
# other tiers' labs and fio load in bursts) run last in it, once .other-tiers-done says the
# others have ended.
test: install
	@rm -f .other-tiers-done; \
	CEPHBENCH_QUIET_AFTER=$(CURDIR)/.other-tiers-done \
	  $(BIN)/pytest -m lab --durations=40 > .lab-tests.log 2>&1 & lab=$$!; \
	$(MAKE) --no-print-directory lint typecheck; static=$$?; \
	$(BIN)/pytest -m pure -n 2 -q --durations=5; pure=$$?; \
	$(BIN)/pytest -m fio -q --durations=10; fio=$$?; \
	{ [ "$$(id -u)" != 0 ] || $(BIN)/cephbench lab build-k8s; } && \
	  $(BIN)/pytest -m k8s -q --durations=10; k8src=$$?; \
	{ [ "$$(id -u)" != 0 ] || $(BIN)/cephbench lab releases --build reef --build tentacle; } && \
	  $(BIN)/pytest -m release -n 2 --dist loadgroup -q --durations=10; relrc=$$?; \
	touch .other-tiers-done; \
	wait $$lab; labrc=$$?; echo "== the lab tier"; cat .lab-tests.log; \
	rm -f .lab-tests.log .other-tiers-done; \
	[ $$static = 0 ] && [ $$pure = 0 ] && [ $$fio = 0 ] && [ $$k8src = 0 ] && [ $$relrc = 0 ] && \
	  [ $$labrc = 0 ]

# The lab's Kubernetes binaries (lab up --k8s), built from the Go module proxy if not cached
# ($$XDG_CACHE_HOME/cephbench/k8s): 13 minutes the first time, nothing after. `demo` never waits for it.
k8s: venv
	$(BIN)/cephbench lab build-k8s

# The roots of the newer Ceph releases (lab up --release reef|tentacle), built from Debian with
# mmdebstrap if not cached ($$XDG_CACHE_HOME/cephbench/releases): a minute each the first time.
releases: install
	$(BIN)/cephbench lab releases --build reef --build tentacle

# The pure tier alone (tests/unit: no fio, no lab, no root): a minute at most.
test-fast: venv
	$(BIN)/pytest -m pure -n 2 -q

# The help texts `cephbench CMD --help` prints without importing click (src/cephbench/help.txt),
# written again from the commands' definitions: after changing any command's options or text.
help: venv
	$(BIN)/python -m cephbench.help_file

lint: venv
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy

# The main job: a throwaway Ceph lab, the quick suite on a fresh RBD image in it, a Markdown
# report. The lab is taken down however the run ends.
demo: install
	@mkdir -p $(DEMO_DIR)
	@export CEPHBENCH_LAB_DIR="$(CURDIR)/$(DEMO_DIR)/lab" CEPHBENCH_DB="$(CURDIR)/$(DEMO_DIR)/results.db"; \
	trap '$(BIN)/cephbench lab down' EXIT; \
	$(BIN)/cephbench lab up && \
	$(BIN)/cephbench run quick --label demo && \
	$(BIN)/cephbench show last --format md > $(DEMO_DIR)/table.md && \
	$(BIN)/cephbench report last -o $(DEMO_DIR)/report.html && \
	echo "results: $(DEMO_DIR)/results.db   table: $(DEMO_DIR)/table.md"

clean:
	rm -rf $(VENV) $(DEMO_DIR) build src/*.egg-info .pytest_cache .ruff_cache
