# Makefile - thin wrapper over CMake/CTest. The build itself is CMakeLists.txt.
#
#   make demo          install missing packages, build, run scripts/demo.xr
#   make test          same set-up, then the whole test suite
#   make asan          test suite under ASan+UBSan (build-asan/)
#   make bench         load benchmark (parse + verify), not a test
#   make pgo           train the profile that make build optimises core by
#   make fuzz          libFuzzer parser harness, short run (build-fuzz/)
#   make fuzz-passes   libFuzzer harness for the passes (same options)
#   make format        clang-format the C sources in place
#
# WERROR=1 turns warnings into errors (CI). JOBS=N sets parallelism.
# PGO=0 builds core without the profile (see make pgo); CORPUS names the
# real HLO modules the profile is trained on besides the repository's own.
# FUZZ_SECONDS / FUZZ_RUNS bound the fuzz run (whichever ends first; about
# 16k runs/s here, so the default 60 s is the bound that acts).

MAKEFLAGS += --no-print-directory

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
WERROR ?= 0
BUILD_TYPE ?= RelWithDebInfo
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 2000000
# 0: a new random seed each run; CI fixes it so its run is reproducible.
FUZZ_SEED ?= 0
FUZZ_SEED_DIRS ?= tests/fuzz/seeds
CMAKE ?= cmake
CTEST ?= ctest
# Extra ctest arguments, e.g. CTEST_ARGS="-R unit.fusion" or, as CI does,
# CTEST_ARGS="--repeat until-pass:2" (a failure is still printed).
CTEST_ARGS ?=
PGO ?= 1
CORPUS ?= ../shared/corpus/hlo

# Always pass XR_WERROR so a later plain `make test` undoes WERROR=1.
WERROR_FLAG := -DXR_WERROR=$(if $(filter 1 ON on yes YES true,$(WERROR)),ON,OFF)

DEPS_STAMP := build/.deps-stamp
# Profile-guided optimisation (GCC): an instrumented xla-repl (build/pgo/gen)
# runs scripts/pgo-train.sh; its counts (build/pgo/profile) lay out and
# inline core in build/. Trained once, when there is no profile yet: a
# function changed since is optimised as without one; make pgo trains
# again (CI's clean clone always does).
PGO_PROFILE := $(CURDIR)/build/pgo/profile
PGO_STAMP := build/pgo/profile/trained.stamp
PGO_ON := $(filter 1 ON on yes YES true,$(PGO))
FORMAT_FILES = $(shell find core repl viz tests -name '*.[ch]' 2>/dev/null)

.PHONY: all deps build pgo demo test asan bench venv fuzz fuzz-passes fuzz-run format format-check clean

all: build

deps: $(DEPS_STAMP)

$(DEPS_STAMP): scripts/install-deps.sh
	scripts/install-deps.sh
	@mkdir -p $(dir $@) && touch $@

build: deps $(if $(PGO_ON),$(PGO_STAMP))
	$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(WERROR_FLAG) \
		-DXR_PGO_USE=$(if $(PGO_ON),$(PGO_PROFILE))
	$(CMAKE) --build build -j$(JOBS)

$(PGO_STAMP):
	@$(MAKE) pgo

pgo: deps
	rm -rf $(PGO_PROFILE)
	$(CMAKE) -S . -B build/pgo/gen -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
		$(WERROR_FLAG) -DXR_PGO_GENERATE=$(PGO_PROFILE) -DXR_PGO_USE=
	$(CMAKE) --build build/pgo/gen -j$(JOBS) --target xla-repl
	scripts/pgo-train.sh build/pgo/gen/xla-repl $(CORPUS)
	@mkdir -p $(PGO_PROFILE) && touch $(PGO_STAMP)

demo: build
	./build/xla-repl scripts/demo.xr

test: build
	$(CTEST) --test-dir build --output-on-failure -j$(JOBS) $(CTEST_ARGS)

asan: deps
	$(CMAKE) -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DXR_SANITIZE=ON \
		$(WERROR_FLAG)
	$(CMAKE) --build build-asan -j$(JOBS)
	$(CTEST) --test-dir build-asan --output-on-failure -j$(JOBS) $(CTEST_ARGS)

bench: build
	scripts/bench.sh build/xr_bench

# Python packages for the XLA reference (jax, numpy: real XLA:CPU) in a
# virtual environment of its own; only `make bench` uses it.
VENV ?= build/venv
venv: $(VENV)/.stamp

$(VENV)/.stamp:
	python3 -m venv $(VENV) || { echo "make venv: python3 cannot make a" \
		"virtual environment (Debian: apt-get install python3-venv)"; \
		exit 1; }
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet numpy jax
	@touch $@

# The harness and a copy of core/ are built with clang and
# -fsanitize=fuzzer,address,undefined. New inputs go to build-fuzz/corpus;
# tests/fuzz/seeds is only read. A crash leaves build-fuzz/crash-*.
fuzz: deps
	@$(MAKE) fuzz-run FUZZ_TARGET=fuzz_parser

fuzz-passes: deps
	@$(MAKE) fuzz-run FUZZ_TARGET=fuzz_passes \
		FUZZ_SEED_DIRS="tests/fuzz/seeds tests/fuzz/seeds-passes"

# FUZZ_TARGET: fuzz_parser or fuzz_passes; each keeps its own corpus.
fuzz-run:
	@if ! command -v clang >/dev/null 2>&1; then \
		echo "fuzz: skipped: clang not found"; exit 0; fi; \
	set -e; \
	$(CMAKE) -S . -B build-fuzz -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DXR_FUZZ=ON $(WERROR_FLAG); \
	if ! grep -q '^XR_HAVE_LIBFUZZER:INTERNAL=1' build-fuzz/CMakeCache.txt; \
	then echo "fuzz: skipped: clang cannot link -fsanitize=fuzzer" \
		"(install libclang-rt-14-dev)"; exit 0; fi; \
	$(CMAKE) --build build-fuzz -j$(JOBS) --target $(FUZZ_TARGET); \
	mkdir -p build-fuzz/corpus-$(FUZZ_TARGET); \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	./build-fuzz/$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) \
		-runs=$(FUZZ_RUNS) -seed=$(FUZZ_SEED) -timeout=10 \
		-print_final_stats=1 \
		-artifact_prefix=build-fuzz/ build-fuzz/corpus-$(FUZZ_TARGET) \
		$(FUZZ_SEED_DIRS)

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	clang-format --dry-run -Werror $(FORMAT_FILES)

clean:
	rm -rf build build-asan build-fuzz
