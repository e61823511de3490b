# Convenience front end over CMake. `make demo` and `make test` are the two
# commands of the README's quick start; both install missing Debian packages.
JOBS   ?= $(shell nproc)
BUILD  ?= build
ASAN   ?= build-asan
FUZZ   ?= build-fuzz
# `make fuzz`: seconds per parser; `make test` runs each for FUZZ_CI_SECONDS (fuzz/README.md).
FUZZ_SECONDS    ?= 60
FUZZ_CI_SECONDS ?= 10
# clang, libclang-rt-14-dev (libFuzzer) and libomp-dev (OpenMP under clang): the fuzz build;
# openmpi-bin and libopenmpi-dev: runs over MPI ranks (docs/scale-out.md);
# coinor-libclp-dev: the exact throughput LP's second solver (docs/throughput.md).
DEB_PACKAGES = build-essential cmake pkg-config libjansson-dev libgsl-dev libigraph-dev \
               libcmocka-dev libglpk-dev coinor-libclp-dev libxgboost-dev gnuplot-nox time \
               clang libclang-rt-14-dev libomp-dev openmpi-bin libopenmpi-dev

.PHONY: all deps build build-asan build-fuzz demo test test-release test-asan fuzz fuzz-ci \
        bench clean

all: build

deps:
	@bash tools/install-deps.sh $(DEB_PACKAGES)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DTAILOR_SANITIZE=ON >/dev/null
	cmake --build $(ASAN) -j $(JOBS)

build-fuzz: deps
	CC=clang cmake -S . -B $(FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTAILOR_FUZZ=ON >/dev/null
	cmake --build $(FUZZ) -j $(JOBS)

demo: build
	./$(BUILD)/tailor demo

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

# Every fuzzer for FUZZ_SECONDS, one at a time; corpora grow in $(FUZZ)/corpus.
fuzz: build-fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD=$(FUZZ) bash fuzz/run.sh

# The short run of `make test`: corpora grow in a temporary folder, never in the
# tree; fails if any fuzzer crashes.
fuzz-ci: build-fuzz
	@work=$$(mktemp -d) && FUZZ_SECONDS=$(FUZZ_CI_SECONDS) FUZZ_BUILD=$(FUZZ) FUZZ_WORK=$$work \
	  bash fuzz/run.sh; rc=$$?; rm -rf "$$work"; exit $$rc

test: test-release test-asan fuzz-ci

bench: build
	cmake --build $(BUILD) --target benches -j $(JOBS)
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b; done

clean:
	rm -rf $(BUILD) $(ASAN) $(FUZZ)
