#!/usr/bin/env bash
# check-foreign.sh: the scenario library against a third party's firmware (foreign_mcpu.elf, not
# our core) under mcpsim-avr: the runner must report the firmware's real deviations and nothing
# else. Every failing scenario must be explained by expected-failures.txt (else: a false alarm),
# and each deviation D1..D6 of DEVIATIONS.md must be shown by at least one failing scenario
# (else: a miss). Usage: check-foreign.sh CONFORMANCE FOREIGN_ELF [MCPSIM_AVR]
set -uo pipefail
runner=$1 elf=$2
[ $# -ge 3 ] && export MCPSIM_AVR=$3
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$runner" --target "avr:$elf" --json "$out/report.json" >"$out/console.txt" 2>&1
rc=$?
if [ $rc -ne 1 ]; then
    echo "FAIL: the runner exited $rc (expected 1: scenarios failed, the device reachable)"
    tail -20 "$out/console.txt"
    exit 1
fi
python3 "$here/classify.py" "$out/report.json" "$here/expected-failures.txt"
