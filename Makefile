# mewcode — build, run, test, lint, static build, benchmarks.
# `make run` and `make test` are the README's two set-up commands.

CARGO ?= cargo
MUSL_TARGET := x86_64-unknown-linux-musl
# Where cargo builds: `target/` unless CARGO_TARGET_DIR says otherwise.
TARGET_DIR := $(abspath $(or $(CARGO_TARGET_DIR),target))
MUSL_BIN := $(TARGET_DIR)/$(MUSL_TARGET)/release/mewcode

.PHONY: build run install test lint doc musl bench clean

build:
	$(CARGO) build --release

# The REPL in the current directory (or the setup guide when no model is configured).
run: build
	$(TARGET_DIR)/release/mewcode $(ARGS)

# `mewcode` on PATH: the release binary copied to $(PREFIX)/bin (default ~/.local/bin, no root
# needed; `make install PREFIX=/usr/local` for everyone).
PREFIX ?= $(HOME)/.local
install: build
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 "$(TARGET_DIR)/release/mewcode" "$(DESTDIR)$(PREFIX)/bin/mewcode"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "note: $(PREFIX)/bin is not on your PATH; add it to run mewcode by name";; esac

# Tests that could not run here list themselves in this file (tests/support/skip.rs).
SKIP_LOG := $(TARGET_DIR)/skipped-tests.txt

# Unit tests, the integration suite (real binary, fake model server) and the tidy checks. The
# examples (benchmarks) are only compiled, so the last test summary printed is the suite's.
test:
	@bash .ci/test-deps || echo "warning: could not install the real MCP servers; their tests will say so"
	$(CARGO) build --examples
	@rm -f "$(SKIP_LOG)"
	MEWCODE_SKIP_LOG="$(SKIP_LOG)" $(CARGO) test --lib --bins --tests
	@if [ -s "$(SKIP_LOG)" ]; then echo "SKIPPED: $$(wc -l < "$(SKIP_LOG)") tests did not run here (libtest printed them as ok):"; \
	  sed 's/^/  /' "$(SKIP_LOG)"; fi

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --all-targets -- -D warnings

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps

# A fully static binary: adds the musl target and musl-tools when they are missing.
musl:
	@rustup target list --installed 2>/dev/null | grep -qx $(MUSL_TARGET) || rustup target add $(MUSL_TARGET)
	@command -v musl-gcc >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq musl-tools; }
	# Non-PIE: a plain static executable (`file` says "statically linked"), nothing for a loader to do.
	CC_x86_64_unknown_linux_musl=musl-gcc CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C relocation-model=static" \
		$(CARGO) build --release --target $(MUSL_TARGET)
	@file $(MUSL_BIN)
	@echo "static binary: $(MUSL_BIN) ($$(stat -c %s $(MUSL_BIN)) bytes)"

# Prints the figures of SPEC §10 that exist so far (medians of several runs).
bench: build
	MEWCODE_BIN=$(TARGET_DIR)/release/mewcode MUSL_BIN=$(MUSL_BIN) bash bench/run.sh

clean:
	$(CARGO) clean
