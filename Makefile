# Convenience front end over CMake. `make demo` and `make test` are the two
# commands of the README's quick start; both install missing Debian packages.
JOBS   ?= $(shell nproc)
BUILD  ?= build
ASAN   ?= build-asan
DEB_PACKAGES = build-essential cmake pkg-config libjansson-dev libgsl-dev libigraph-dev \
               libcmocka-dev libglpk-dev libxgboost-dev gnuplot-nox

.PHONY: all deps build build-asan demo test test-release test-asan bench clean

all: build

deps:
	@bash tools/install-deps.sh $(DEB_PACKAGES)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DTAILOR_SANITIZE=ON >/dev/null
	cmake --build $(ASAN) -j $(JOBS)

demo: build
	./$(BUILD)/tailor demo

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

test: test-release test-asan

bench: build
	cmake --build $(BUILD) --target benches -j $(JOBS)
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b; done

clean:
	rm -rf $(BUILD) $(ASAN)
