# paygate - one-command entry points.
#
#   make dev           local stack: moto + tables + seed data + HTTP server (no cloud, no Docker)
#   make test          everything CI runs: fmt check, clippy (fuzz targets too), cfn-lint, all tests (schemathesis conformance included)
#   make lint          fmt check + clippy (workspace and fuzz targets) + cfn-lint + audit (no tests)
#   make audit         unused dependencies (cargo-machete), licenses and duplicate versions (cargo-deny)
#   make sam-validate  sam validate --lint (installs aws-sam-cli into .venv/sam, ~40 s once)
#   make rehearse      deploy rehearsal: sam validate, the SAM transform of every deploy mode, cfn-lint
#   make fmt           format the workspace
#   make build-lambda  release arm64 Lambda bundles: target/lambda/<bin>/bootstrap and <bin>.zip (what template.yaml deploys)
#   make deploy        build-lambda + sam deploy (needs AWS credentials; see below)
#   make clean-local   remove local tooling and state (.venv/, .local/), not cargo's target/
#   make listen-cert   create .local/listen/{cert,key}.pem for `paygate listen` (start make dev with it: see docs/cli.md)
#   make bench         release binaries vs the Runtime API stub and a C floor: one table (docs/performance.md)
#   make chaos         the money-safety soak, longer and with its figures (PAYGATE_SOAK_OPS, PAYGATE_SOAK_SEED)
#   make fuzz          cargo-fuzz on the parsers of untrusted input, FUZZ_SECONDS (60) per target (docs/security.md, Fuzzing)
#   make cli ARGS="…"  the paygate CLI (cargo run -p paygate-cli -- $ARGS), e.g. ARGS="--local endpoints list"
#   make dashboard     the dashboard web page at http://127.0.0.1:3001 against make dev (paygate --local dashboard)
#   make dashboard-screenshots  the dashboard PNGs of docs/operations.md into docs/img/ (headless Chromium)
#
# Python tools (moto, cfn-lint, aws-sam-cli) live in .venv/, pinned and installed on demand
# by scripts/venv.sh; the arm64 cross toolchain and qemu are Debian packages installed on
# demand by scripts/arm64.sh (apt-get); a fresh clone needs only python3, cargo and rustup.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

VENV := $(CURDIR)/.venv
MOTO := PAYGATE_MOTO_SERVER=$(VENV)/bin/moto_server
export SAM_CLI_TELEMETRY := 0

# Lambda binaries = the CodeUri folders of template.yaml (single source of truth).
LAMBDA_BINS := $(shell sed -n 's|^ *CodeUri: target/lambda/\([A-Za-z0-9_-]*\)/ *$$|\1|p' template.yaml)
STAGE ?= dev

.PHONY: fuzz fuzz-check bench chaos help venv toolchain dev test lint audit audit-tools fmt fmt-check clippy cfn-lint sam-validate rehearse build-lambda deploy clean-local listen-cert cli browser dashboard dashboard-screenshots

help:
	@sed -n 's/^#   make /  make /p' $(MAKEFILE_LIST)

venv:
	@bash scripts/venv.sh

# rustfmt and clippy come with the toolchain on these machines; add them only when missing.
toolchain:
	@if ! cargo clippy --version >/dev/null 2>&1 || ! cargo fmt --version >/dev/null 2>&1; then \
	  rustup component add clippy rustfmt; \
	fi

# The dev server (infra/devserver) starts moto itself, creates the tables and queues, seeds
# them from infra/local/seed.json, serves http://127.0.0.1:$${PAYGATE_PORT:-3000} and runs
# the webhook pipeline (fanout, deliver, sweeper). Environment it reads (from the shell or
# as `make dev VAR=value`; ALLOW_ADDRS and EXTRA_CA are local-only, never deployed):
#   PAYGATE_PORT                    API port (3000)
#   PAYGATE_SEED                    seed file (infra/local/seed.json)
#   PAYGATE_WEBHOOK_RETRY_SCHEDULE  retry waits, e.g. 1s,1s,1s,1s,1s,1s,1s,1s (the spec's 30s,2m,...,24h)
#   PAYGATE_WEBHOOK_ALLOW_ADDRS     exact IPs exempt from the private-network refusal, e.g. 127.0.0.1
#   PAYGATE_WEBHOOK_EXTRA_CA        PEM file of an extra trusted root (a local receiver's certificate)
# e.g. make dev PAYGATE_WEBHOOK_ALLOW_ADDRS=127.0.0.1 PAYGATE_WEBHOOK_EXTRA_CA=$$PWD/.local/cert.pem
dev: venv
	$(MOTO) cargo run -p paygate-devserver --bin paygate-dev

# `paygate listen` serves HTTPS on 127.0.0.1 with this self-signed certificate (made once,
# reused); the dev server delivers there only when started with
#   PAYGATE_WEBHOOK_ALLOW_ADDRS=127.0.0.1 PAYGATE_WEBHOOK_EXTRA_CA=.local/listen/cert.pem make dev
listen-cert:
	cargo run -q -p paygate-cli -- listen --init-cert

# The CLI from source: make cli ARGS="--local trigger payment.captured".
ARGS ?= --help
cli:
	cargo run -q -p paygate-cli -- $(ARGS)

# `paygate dashboard` with the local admin credentials against `make dev` (start that first):
# http://127.0.0.1:$${PAYGATE_DASHBOARD_PORT:-3001}, the API at $${PAYGATE_API_URL:-http://127.0.0.1:$${PAYGATE_PORT:-3000}}.
dashboard:
	cargo run -q -p paygate-cli -- --local dashboard

# Debian's chromium (apt-get, only when /usr/bin/chromium is missing) and Playwright (PyPI,
# .venv/pw) for the dashboard's browser test; never Playwright's own browser download.
browser:
	@bash scripts/chromium.sh

# The dashboard's browser test with screenshots: writes docs/img/dashboard-*.png.
dashboard-screenshots: venv browser
	PAYGATE_DASHBOARD_SHOTS=$(CURDIR)/docs/img $(MOTO) cargo test -p paygate-tests --test dashboard -- --nocapture

fmt:
	cargo fmt --all

fmt-check: toolchain
	cargo fmt --all -- --check

clippy: toolchain
	cargo clippy --workspace --all-targets -- -D warnings

# infra/edge-waf.yaml: the web ACL of EdgeProtection=waf (a stack of its own, in us-east-1).
cfn-lint: venv
	$(VENV)/bin/cfn-lint template.yaml infra/edge-waf.yaml

# cargo-machete (dependencies declared but not used) and cargo-deny (deny.toml: licenses;
# bans: a second version of a crate, wildcard versions). Both come from crates.io, installed
# by `cargo install --locked` into cargo's bin directory the first time (pinned versions;
# about 50 s and 130 s to build on a 2-core machine, nothing after that), since nothing
# installed by hand survives on a fresh machine. cargo-deny's advisories check is not run:
# it fetches the RustSec advisory database with git, and these machines reach only the
# package registries.
MACHETE_VERSION := 0.9.2
DENY_VERSION := 0.20.2
audit-tools:
	@if [ "$$(cargo machete --version 2>/dev/null)" != "$(MACHETE_VERSION)" ]; then \
	  cargo install --locked cargo-machete --version $(MACHETE_VERSION); \
	fi
	@if [ "$$(cargo deny --version 2>/dev/null)" != "cargo-deny $(DENY_VERSION)" ]; then \
	  cargo install --locked cargo-deny --version $(DENY_VERSION); \
	fi

audit: audit-tools
	cargo machete
	cargo deny check licenses bans

# The fuzz targets (fuzz/, not a workspace member) are formatted and linted like the
# workspace, so a change to a parser they drive cannot leave them broken until the next
# `make fuzz` (a check build: libFuzzer's C++ is compiled, nothing is run).
fuzz-check: toolchain
	cargo fmt --manifest-path fuzz/Cargo.toml -- --check
	cargo clippy --manifest-path fuzz/Cargo.toml --bins --locked --target-dir target -- -D warnings

lint: fmt-check clippy fuzz-check cfn-lint audit

# SAM's own transform + cfn-lint over the template as written (default parameters).
sam-validate:
	@bash scripts/venv.sh sam
	$(VENV)/sam/bin/sam validate --lint --template-file template.yaml

# The deploy rehearsal (no AWS account here; docs/operations.md, "Deploy rehearsal"):
# sam validate --lint, then the SAM transform (aws-sam-translator) of every deploy mode
# with its conditions decided (scripts/sam_rehearse.py) and cfn-lint over the plain
# CloudFormation of all modes off and all on. The checks of the translated templates
# (references, environments, IAM, aliases) are a Rust test that runs the same transform
# (infra/devserver/tests/template_rehearsal.rs). About 15 s; .venv/sam is shared by the
# clones of a machine (scripts/venv.sh), so a fresh clone installs nothing twice.
rehearse: sam-validate
	$(VENV)/sam/bin/python scripts/sam_rehearse.py --lint

# One process per test binary, so each binary shares one moto server across its tests
# (nextest's process-per-test would start a moto for every test).
# scripts/venv.sh schemathesis: .venv/st for the conformance run (tests/tests/conformance.rs).
# scripts/chromium.sh: /usr/bin/chromium and .venv/pw for the dashboard's browser test
# (tests/tests/dashboard). scripts/arm64.sh toolchain: the cross toolchain and qemu for
# tests/tests/arm64.rs, which builds get-payment's arm64 release bootstrap (target/arm64;
# cold over 8 CPU-minutes, 13+ min on a busy 2-core machine; after that only what changed)
# and runs it under qemu against moto.
test: venv browser lint rehearse
	@bash scripts/venv.sh schemathesis
	@bash scripts/arm64.sh toolchain
	$(MOTO) cargo test --workspace --no-fail-fast

# The randomized fault soak (tests/tests/soak): `make test` runs it with 500 operations;
# this runs it with PAYGATE_SOAK_OPS (default 2000) and prints its figures.
PAYGATE_SOAK_OPS ?= 2000
chaos: venv
	PAYGATE_SOAK_OPS=$(PAYGATE_SOAK_OPS) $(MOTO) cargo test -p paygate-tests --test soak -- --nocapture

# The benchmark (the paygate-tests package: tests/src/bench, tests/src/bin): release binaries
# of every template.yaml function and the C floor (tests/benches/floor/floor.c, gcc -O2)
# started against the Runtime API stub; prints one table (init median/p90 to the first
# GET /next and × the floor, threads, callgrind instructions when valgrind is present and
# the SDK's part of a warm event, first and warm event over moto, the AWS calls of each
# counted at a proxy in front of moto, peak RSS, stripped and zip sizes; the arm64 zips of
# `make build-lambda` when they were built from the sources now in the work tree). The binaries keep their symbols (CARGO_PROFILE_RELEASE_STRIP
# =false) for callgrind's per-function costs; sizes are of stripped copies. BENCH_RUNS (15),
# BENCH_EVENT_RUNS (3), BENCH_ONLY=a,b, BENCH_CALLGRIND=0. Then the handler CPU figures
# (tests/src/bin/handler-cpu.rs: BENCH_CPU_ROUNDS, BENCH_CPU_OPS) and the webhook
# deliverer's throughput (tests/benches/webhook_throughput.rs: BENCH_WEBHOOK_DELIVERIES).
bench: venv
	CARGO_PROFILE_RELEASE_STRIP=false cargo build --release $(addprefix -p fn-,$(LAMBDA_BINS))
	@mkdir -p target/bench
	gcc -O2 -o target/bench/floor tests/benches/floor/floor.c
	$(MOTO) BENCH_FLOOR=$(CURDIR)/target/bench/floor cargo run -q -p paygate-tests --bin paygate-bench
	cargo run --release -q -p paygate-tests --bin handler-cpu
	cargo bench -q -p paygate-tests --bench webhook_throughput

# scripts/arm64.sh cross-compiles every function once (release, aarch64-unknown-linux-gnu,
# into target/arm64 so the host's target/ is untouched): rustup's aarch64 target when it is
# installed, else Debian's rustc and arm64 std (apt-get, once); the linker is Debian's
# aarch64-linux-gnu-gcc. Each template.yaml function's CodeUri is target/lambda/<bin>/,
# holding its bootstrap and partitions.json (the SDK's trimmed partition table,
# paygate_aws::partitions); target/lambda/<bin>.zip beside it is the same as Lambda's zip.
# A bootstrap needing a newer glibc than provided.al2023's (2.34) fails the build.
# target/lambda/<bin>.source records the commit and the hashes of the files each bootstrap
# was built from; `make bench` reports an arm64 zip only while they match the work tree.
build-lambda:
	@bash scripts/arm64.sh build $(LAMBDA_BINS)
	@for b in $(LAMBDA_BINS); do \
	  test -f target/lambda/$$b/bootstrap || { echo "missing target/lambda/$$b/bootstrap" >&2; exit 1; }; \
	  test -f target/lambda/$$b/partitions.json || { echo "missing target/lambda/$$b/partitions.json" >&2; exit 1; }; \
	done

# Needs AWS credentials for the target account (AWS_PROFILE or the usual AWS_* variables)
# and a region (AWS_DEFAULT_REGION or the profile's). samconfig.toml holds per-stage
# settings (stack name, Stage parameter): `make deploy STAGE=prod`. Without a samconfig.toml,
# sam asks its questions (--guided) and can write one.
deploy: build-lambda
	@bash scripts/venv.sh sam
	@if [ -f samconfig.toml ]; then \
	  set -x; $(VENV)/sam/bin/sam deploy --config-env $(STAGE); \
	else \
	  set -x; $(VENV)/sam/bin/sam deploy --guided --template-file template.yaml; \
	fi

clean-local:
	rm -rf .venv .local

# cargo-fuzz (crates.io, pinned, installed once by `cargo install --locked`) over fuzz/
# (not a workspace member): the webhook signature header, request bodies (merchant, admin
# and test-helper, the simulators' admin routes included), the SigV4 header and the bank
# response readers. Stable toolchain: RUSTC_BOOTSTRAP=1 lets stable rustc take the -Z flags
# cargo-fuzz passes; `-s none`: no sanitizer (the code forbids unsafe); the first build
# takes ~9 min on 2 cores. FUZZ_SECONDS per target.
FUZZ_VERSION := 0.13.2
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := signature_header request_body handler_bodies admin_bodies test_helper_bodies sigv4_header bank_responses
fuzz:
	@if [ "$$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $(FUZZ_VERSION)" ]; then \
	  cargo install --locked cargo-fuzz --version $(FUZZ_VERSION); \
	fi
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	  RUSTC_BOOTSTRAP=1 cargo fuzz run -s none $$t -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done
