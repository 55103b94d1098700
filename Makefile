# One entry point for building, testing and benchmarking aqmlab. `make help` lists the targets.
PYTHON ?= python3

.PHONY: help install install-test demo test lint test-rust test-python bench fuzz fmt emu

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

# The Rust core is built with profile-guided optimisation (scripts/pgo-install.sh: about 10%
# faster, same results); AQMLAB_PGO=0 makes a plain release build, quicker to compile.
export PYTHON

install: ## build the Rust core (profile-guided) and install the aqmlab package (editable)
	scripts/pgo-install.sh .

install-test: ## install aqmlab (as install) with its test tools (pytest, ruff)
	scripts/pgo-install.sh '.[test]'

demo: install ## the main job: the CoDel paper's dynamic link reproduced, its claims beside ours
	$(PYTHON) -m aqmlab reproduce codel-dynamic --out out/codel-dynamic

lint: ## rustfmt, clippy and rustdoc (warnings are errors) and ruff
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps -q
	$(PYTHON) -m ruff check python tests examples
	$(PYTHON) -m ruff format --check python tests examples

test-rust: ## every Rust test (unit, integration, property, vector agreement, doc tests)
	cargo test

emu: ## build the live emulator's forwarder (aqmlab shell; release build)
	cargo build --release -p aqmlab-emu

test-python: emu ## every Python test
	$(PYTHON) -m pytest

test: install-test lint test-rust test-python ## install, lint, and run every test, Rust and Python

bench: ## criterion benchmarks of one enqueue+dequeue pair per discipline
	cargo bench -p aqmlab-qdisc --bench qdisc

fuzz: ## fuzz the schedule parser, every discipline and scenario files for 30 s each (needs the nightly toolchain)
	./fuzz/run.sh 30

fmt: ## format Rust and Python sources
	cargo fmt --all
	$(PYTHON) -m ruff format python tests
