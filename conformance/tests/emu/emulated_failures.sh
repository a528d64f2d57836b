#!/usr/bin/env bash
# emulated_failures.sh: the runner against emulated chips that fail (fake_device.c built three
# ways): each run must end on its own with exit status 3, say what happened, and still write its
# JSON and JUnit reports. Usage: emulated_failures.sh CONFORMANCE DIR (DIR holds fake_*.elf).
set -uo pipefail
runner=$1 dir=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0

# check NAME EXPECTED-TEXT...: runs the runner on fake_NAME.elf; every EXPECTED-TEXT must appear
# in its stderr and in the JSON report.
check() {
    local name=$1
    shift
    local start end rc
    start=$(date +%s)
    # The ctest TIMEOUT is the backstop; a run that needs it has hung, which is the failure.
    "$runner" --target "qemu:$dir/fake_$name.elf" --json "$out/$name.json" \
        --junit "$out/$name.xml" >"$out/$name.out" 2>"$out/$name.err"
    rc=$?
    end=$(date +%s)
    local ok=1
    [ "$rc" -eq 3 ] || { echo "FAIL $name: exit status $rc, expected 3 (device unreachable)"; ok=0; }
    for f in json xml; do
        [ -s "$out/$name.$f" ] || { echo "FAIL $name: no $f report written"; ok=0; }
    done
    for text in "$@"; do
        grep -qF -- "$text" "$out/$name.err" ||
            { echo "FAIL $name: stderr does not say \"$text\""; ok=0; }
        grep -qF -- "$text" "$out/$name.json" ||
            { echo "FAIL $name: the JSON report does not say \"$text\""; ok=0; }
    done
    if [ $ok -eq 1 ]; then
        echo "ok   $name: exit 3 after $((end - start)) s: $(head -c 200 "$out/$name.err" | tr '\n' ' ')"
    else
        sed 's/^/     | /' "$out/$name.err" | head -20
        fails=$((fails + 1))
    fi
}

# Never prints a byte: discovery fails and says that nothing at all arrived.
check silent "does not answer discovery" "not a single byte arrived from the device"
# Answers discovery, then hangs: given up after a few silent scenarios, the rest fail at once.
check hang "the device stopped answering"
# Answers discovery, then locks up: QEMU ends, and its own fatal message is in the diagnosis.
check crash "the emulator (QEMU) was killed by signal 6" "Lockup"

[ $fails -eq 0 ] && echo "all 3 failure modes diagnosed" || exit 1
