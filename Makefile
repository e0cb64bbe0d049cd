# Hone: the two commands of the README.
#   make run   — install what is missing, build, and open the app on skills/
#   make test  — install what is missing, then run every check and test
# Everything they install is listed in scripts/setup.sh.
#
# Both build with one cargo invocation (`build`), so switching between them
# rebuilds nothing: `cargo build -p hone-app` alone would resolve features
# without the CLI's and the tests' dependencies and rebuild half the tree.

SHELL := /bin/bash
CARGO ?= cargo
LIBRARY ?= skills
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
# The shared corpus beside the checkout, when there is one: its tests are
# ignored without it (`cargo test` lists them) and run with it.
CORPUS ?= $(wildcard ../shared/corpus)
# The embedding model's 16-bit integer pass needs AVX-512 VNNI; on a processor
# without it the pass is never used, and its own tests are skipped, by name
# and with a note, instead of failing on the machine rather than the code.
SKIP_INT16 := $(if $(shell grep -qs avx512_vnni /proc/cpuinfo && echo yes),,--skip embed::int16)

.PHONY: run test setup ui build model bundle bench fuzz corpus book

setup:
	@scripts/setup.sh

ui: setup
	npm --prefix ui run build

# One dev-profile build serves the app, the CLI, the unit tests, the CLI
# tests and the end-to-end tests (dependencies are optimised in that profile).
build: ui
	$(CARGO) build --workspace --all-targets

model: build
	@HONE_BIN=$(TARGET_DIR)/debug/hone scripts/install-model.sh

# The installable bundle, from the dev-profile build above (a release build of
# the app would cost CI most of an hour on two cores): a .deb of the app with
# the `hone` command as /usr/bin/hone, in $(TARGET_DIR)/debug/bundle/deb/, and
# an AppImage of the same files in .../bundle/appimage/, made by
# scripts/bundle-appimage.sh (the Tauri bundler's AppImage downloads its tools
# from GitHub).
TAURI := $${XDG_CACHE_HOME:-$$HOME/.cache}/hone/tauri-cli/node_modules/.bin/tauri

# --no-binary-patching leaves cargo's hone-app as built (the patch only marks
# the binary's package type for Tauri's updater, which Hone does not use). The
# bundler leaves the package's unpacked tree (400 MB) beside the .deb: removed.
bundle: build
	$(TAURI) bundle --debug --ci --no-binary-patching --bundles deb
	rm -rf $(TARGET_DIR)/debug/bundle/deb/*/
	scripts/bundle-appimage.sh debug

run: build model
	@scripts/with-display.sh $(TARGET_DIR)/debug/hone-app $(LIBRARY)

# Every test binary runs even when one fails (--no-fail-fast), so one
# failure never hides another.
test: build model bundle
	$(CARGO) fmt --all --check
	npm --prefix ui run check
	npm --prefix ui test
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(if $(SKIP_INT16),@echo "test: skipping embed::int16 (this processor lacks AVX-512 VNNI, which that pass needs)")
	$(if $(CORPUS),HONE_CORPUS=$(abspath $(CORPUS)) )$(CARGO) test --workspace --no-fail-fast -- $(if $(CORPUS),--include-ignored) $(SKIP_INT16) --skip bundle_
	$(CARGO) test --workspace --test bundle -- --ignored

# The corpus tests alone (they need HONE_CORPUS; see crates/hone-core/tests/common).
corpus: build
	HONE_CORPUS=$(abspath $(or $(CORPUS),$(error no corpus: set CORPUS=path/to/skills))) $(CARGO) test --workspace --no-fail-fast -- --ignored

# The book (docs/) into target/book; `make test` builds it too and checks its links.
book:
	@scripts/install-mdbook.sh
	$${XDG_CACHE_HOME:-$$HOME/.cache}/hone/mdbook-venv/bin/mdbook build docs
	@echo "book: $(abspath target/book)/index.html"

bench:
	HONE_CORPUS=$${HONE_CORPUS:-../shared/corpus} $(CARGO) bench -p hone-core
	HONE_CORPUS=$${HONE_CORPUS:-../shared/corpus} $(CARGO) bench --profile dev -p hone-serve --bench serve

fuzz:
	cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run parse_skill -- -max_total_time=$${FUZZ_SECONDS:-600}
