# Hone: the two commands of the README.
#   make run   — install what is missing, build, and open the app on skills/
#   make test  — install what is missing, then run every check and test
# Everything they install is listed in scripts/setup.sh.

SHELL := /bin/bash
CARGO ?= cargo
LIBRARY ?= skills

.PHONY: run test setup ui app lint unit e2e bench fuzz

setup:
	@scripts/setup.sh

ui: setup
	npm --prefix ui run build

app: ui
	$(CARGO) build -p hone-app

run: app
	@scripts/with-display.sh target/debug/hone-app $(LIBRARY)

# One dev-profile build serves the unit tests, the CLI tests and the app the
# end-to-end tests drive (dependencies are optimised in that profile).
test: ui
	$(CARGO) fmt --all --check
	npm --prefix ui run check
	npm --prefix ui test
	$(CARGO) build --workspace --all-targets
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	HONE_E2E=1 HONE_REQUIRE_MODEL=1 $(CARGO) test --workspace

bench:
	HONE_CORPUS=$${HONE_CORPUS:-../shared/corpus} $(CARGO) bench -p hone-core
	HONE_CORPUS=$${HONE_CORPUS:-../shared/corpus} $(CARGO) bench --profile dev -p hone-serve --bench serve

fuzz:
	cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run parse_skill -- -max_total_time=$${FUZZ_SECONDS:-600}
