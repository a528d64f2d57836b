#!/usr/bin/env python3
"""check-independent.py: the scenario library against mcpu_device.py, an independent MCP/U device.

Usage: check-independent.py CONFORMANCE [tcp|serial|mistakes|old-shapes|discovery]...

tcp, serial  the correct device over TCP / a pty: the run must end with 0 must-level failures
             (exit status 0; should-level failures are allowed and do not count).
mistakes     each seeded mistake (--mistake NAME) must fail the run and be reported as exactly
             one must-level cause whose text names it (root-cause grouping).
old-shapes   the device answering the sampling and polled tools in mcpsim's former shapes
             (--mistake old-shapes) must fail exactly the mcpu/shapes must checks listed in
             OLD_SHAPES, over TCP and a pty, and no must check outside mcpu/shapes.
discovery    devices that cannot be discovered (--partial-dispatch, --error-id-zero) must be
             named as such in the failing "discovery" case of the JSON report.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICE = os.path.join(HERE, "mcpu_device.py")

MISTAKES = {
    "string-id-null": "string ids are not echoed",
    "notify-answered": "notifications are answered",
    "unknown-method-32600": "expected -32601, got -32600",
    "error-no-jsonrpc": "lacks \"jsonrpc\": \"2.0\"",
}
OLD_SHAPES = ["mcpu/shapes/summary-members", "mcpu/shapes/summary-by-name",
              "mcpu/shapes/buffer-members", "mcpu/shapes/buffer-values-as-counted",
              "mcpu/shapes/buffer-by-name", "mcpu/shapes/buffer-unavailable",
              "mcpu/shapes/events-tool-only-with-an-event-pin"]
DISCOVERY = {
    "--partial-dispatch": "dispatches partial reads",
    "--error-id-zero": "errors carry id 0",
}


def start(args):
    p = subprocess.Popen([sys.executable, DEVICE] + args, stdout=subprocess.PIPE, text=True)
    addr = None
    deadline = time.time() + 10
    while time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        if line.startswith("tcp: "):
            addr = "tcp:" + line[5:].strip()
        elif line.startswith("uart: "):
            addr = "serial:" + line[6:].strip()
        elif line.strip() == "ready":
            return p, addr
    p.kill()
    raise SystemExit("the device did not start: %s" % args)


def run(conformance, target, extra=()):
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "r.json")
        r = subprocess.run([conformance, "--target", target, "--json", report] + list(extra),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        doc = json.load(open(report)) if os.path.exists(report) else None
        return r.returncode, r.stdout, doc


def must_failures(doc):
    return [s["name"] for s in doc["scenarios"] if s["status"] == "fail" and s.get("level") == "must"]


def main():
    conformance = sys.argv[1]
    modes = sys.argv[2:] or ["tcp", "serial", "mistakes", "old-shapes", "discovery"]
    bad = 0
    for mode in modes:
        if mode in ("tcp", "serial"):
            dev, addr = start(["--tcp", "0"] if mode == "tcp" else ["--pty"])
            try:
                rc, out, doc = run(conformance, addr)
            finally:
                dev.kill()
            mf = must_failures(doc) if doc else ["(no report)"]
            ok = rc == 0 and not mf and doc["summary"]["by_level"]["must"]["passed"] > 50
            print("%s %s: exit %d, must %s passed, must failures: %s" % (
                "ok  " if ok else "FAIL", mode, rc,
                doc["summary"]["by_level"]["must"]["passed"] if doc else "?", mf or "none"))
            if not ok:
                print(out[-3000:])
            bad += not ok
        elif mode == "mistakes":
            for name, words in MISTAKES.items():
                dev, addr = start(["--tcp", "0", "--mistake", name])
                try:
                    rc, out, doc = run(conformance, addr)
                finally:
                    dev.kill()
                causes = [c for c in (doc or {}).get("causes", []) if c["level"] == "must"]
                ok = rc == 1 and len(causes) == 1 and words in causes[0]["cause"]
                print("%s mistake %s: exit %d, must causes: %s" % (
                    "ok  " if ok else "FAIL", name, rc,
                    ["%s (%d)" % (c["cause"], c["count"]) for c in causes]))
                bad += not ok
        elif mode == "old-shapes":
            for transport in ("tcp", "serial"):
                dev, addr = start((["--tcp", "0"] if transport == "tcp" else ["--pty"]) +
                                  ["--mistake", "old-shapes"])
                try:
                    rc, out, doc = run(conformance, addr)
                finally:
                    dev.kill()
                mf = must_failures(doc) if doc else ["(no report)"]
                ok = rc == 1 and sorted(mf) == sorted(OLD_SHAPES)
                print("%s old-shapes over %s: exit %d, must failures: %s" % (
                    "ok  " if ok else "FAIL", transport, rc, mf))
                bad += not ok
        elif mode == "discovery":
            for flag, words in DISCOVERY.items():
                dev, addr = start(["--tcp", "0", flag])
                try:
                    rc, out, doc = run(conformance, addr)
                finally:
                    dev.kill()
                case = next((s for s in (doc or {}).get("scenarios", []) if s["name"] == "discovery"), None)
                msg = case["message"] if case else ""
                ok = rc == 3 and case is not None and case["status"] == "fail" and words in msg
                print("%s discovery %s: exit %d: %s" % ("ok  " if ok else "FAIL", flag, rc, msg[:400]))
                bad += not ok
        else:
            raise SystemExit("unknown mode %s" % mode)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
