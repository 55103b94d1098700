# One entry point for building, testing and benchmarking aqmlab. `make help` lists the targets.
PYTHON ?= python3
PIP := $(PYTHON) -m pip

.PHONY: help install install-test demo test lint test-rust test-python bench fuzz fmt

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

PIP_INSTALL := $(PIP) install --quiet --disable-pip-version-check --root-user-action=ignore

install: ## build the Rust core and install the aqmlab package (editable)
	$(PIP_INSTALL) -e .

install-test: ## install aqmlab with its test tools (pytest, ruff)
	$(PIP_INSTALL) -e '.[test]'

demo: install ## the main job: the CoDel dynamic-link experiment, CoDel vs tail drop side by side
	$(PYTHON) -m aqmlab run scenarios/codel-dynamic-link.toml --compare bottleneck=droptail

lint: ## rustfmt, clippy (warnings are errors) and ruff
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(PYTHON) -m ruff check python tests examples
	$(PYTHON) -m ruff format --check python tests examples

test-rust: ## every Rust test (unit, integration, property, vector agreement, doc tests)
	cargo test

test-python: ## every Python test
	$(PYTHON) -m pytest

test: install-test lint test-rust test-python ## install, lint, and run every test, Rust and Python

bench: ## criterion benchmarks of one enqueue+dequeue pair per discipline
	cargo bench -p aqmlab-qdisc --bench qdisc

fuzz: ## fuzz the schedule parser, every discipline and scenario files for 30 s each (needs the nightly toolchain)
	./fuzz/run.sh 30

fmt: ## format Rust and Python sources
	cargo fmt --all
	$(PYTHON) -m ruff format python tests
