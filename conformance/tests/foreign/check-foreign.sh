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
python3 - "$out/report.json" "$here/expected-failures.txt" <<'PY'
import fnmatch, json, sys
report = json.load(open(sys.argv[1]))
entries = []
for line in open(sys.argv[2]):
    line = line.strip()
    if line and not line.startswith("#"):
        name, dev, *why = line.split(None, 2)
        entries.append((name, dev))
deviations = {"D1", "D2", "D3", "D4", "D5", "D6"}
shown, false_alarms, known_false = {}, [], []
for sc in report["scenarios"]:
    if sc["status"] != "fail":
        continue
    dev = next((d for pat, d in entries if fnmatch.fnmatchcase(sc["name"], pat)), None)
    if dev is None:
        false_alarms.append(sc)
    elif dev == "FALSE-ALARM":
        known_false.append(sc["name"])
    else:
        shown.setdefault(dev, []).append(sc["name"])
ok = True
for sc in false_alarms:
    ok = False
    print(f"FAIL false alarm: {sc['name']}: {sc.get('message', '')[:300]}")
for d in sorted(deviations - shown.keys()):
    ok = False
    print(f"FAIL missed: no failing scenario shows {d}")
for d in sorted(shown):
    print(f"ok   {d}: {len(shown[d])} scenario(s): {', '.join(shown[d])}")
for name in known_false:
    print(f"note known false alarm of the library (issue #11): {name}")
s = report["summary"]
print(f"{s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped")
sys.exit(0 if ok else 1)
PY
