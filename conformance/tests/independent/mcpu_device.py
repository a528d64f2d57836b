#!/usr/bin/env python3
"""mcpu_device.py: an independent MCP/U device (Python 3, stdlib only), not built from mcpsim's code.

It follows every MUST of the MCP/U documents (seeds 000, 001) and of JSON-RPC 2.0, and takes the
other legitimate choice wherever they leave latitude: integer pin numbers only, "mv" instead of
"volts", out-of-range PWM duties clamped, unknown pins and wrong pin types refused with server
errors (-32000, -32001) rather than -32602, invalid requests answered with id null, blank lines
and response objects answered with errors, members in another order, no batches, no mcpsim
extensions. Its sampling tools answer MCP/U's shapes and nothing more (get_pin_summary {pin, name,
latest, min, max, avg, samples}, get_pin_buffer {pin: name, count, values} or buffer_available
false, get_pin_events {pin: name, events: [{type, value, threshold}]} reporting the current
threshold state as MCP/U's firmware does), take a pin number or name, and its polled tool answers
the buffer shape {type: "buffer", resource, values}. A conformance run against it must show 0
must-level failures.

Serves over TCP (--tcp PORT, 0 picks one) or a pty (--pty [--pty-link PATH]) and prints its
address as "tcp: HOST:PORT" or "uart: /dev/pts/N", then "ready".

--mistake NAME (repeatable) seeds a real defect:
  string-id-null        string ids are answered with id null
  notify-answered       notifications are answered (with id null)
  unknown-method-32600  unknown methods get -32600 instead of -32601
  error-no-jsonrpc      error responses lack "jsonrpc": "2.0"
  old-shapes            the sampling and polled tools answer as mcpsim did before it followed
                        MCP/U's shapes (summary count, buffer samples [{seq, t, value}] under the
                        pin's number, -32602 for a pin without a buffer, events {seq, kind ...}
                        without the pin, get_pin_events listed with no events pin, a polled
                        tool's own members): a run must fail the mcpu/shapes must checks
Discovery failure modes (for the runner's diagnosis):
  --partial-dispatch    every read (at most 16 bytes, like a UART FIFO) is handled as a whole
                        message: no line framing
  --error-id-zero       every request is answered with a parse error carrying id 0
"""
import argparse
import json
import os
import pty
import select
import socket
import sys
import time
import tty

PINS = [
    {"pin": 13, "name": "led", "type": "digital_output", "description": "Status LED"},
    {"pin": 7, "name": "button", "type": "digital_input", "description": "Push button"},
    {"pin": 9, "name": "fan", "type": "pwm_output", "description": "Fan speed"},
    {"pin": 14, "name": "light", "type": "adc_input", "description": "Light sensor",
     "capabilities": {"summary": True, "buffer": True, "events": False},
     "sampling": {"interval_ms": 100, "buffer_size": 10}},
    {"pin": 15, "name": "temp", "type": "adc_input", "description": "Temperature, threshold 10..35",
     "capabilities": {"summary": True, "buffer": False, "events": True},
     "sampling": {"interval_ms": 250, "buffer_size": 0}},
]
THRESHOLDS = {15: (10, 35)}  # McpThreshold(min, max): events report the current state


def schema(props, required):
    return {"type": "object", "properties": props, "required": required}


PIN = {"type": "integer", "description": "pin number"}
TOOLS = [
    {"name": "gpio_write", "description": "Set a digital output HIGH or LOW",
     "inputSchema": schema({"pin": PIN, "value": {"type": "boolean"}}, ["pin", "value"])},
    {"name": "gpio_read", "description": "Read a digital pin",
     "inputSchema": schema({"pin": PIN}, ["pin"])},
    {"name": "pwm_write", "description": "Set a PWM duty 0-255",
     "inputSchema": schema({"pin": PIN, "duty": {"type": "integer", "minimum": 0, "maximum": 255}},
                           ["pin", "duty"])},
    {"name": "adc_read", "description": "Read an analog input",
     "inputSchema": schema({"pin": PIN}, ["pin"])},
    {"name": "read_uptime", "description": "Seconds since boot",
     "inputSchema": schema({}, []), "polling": {"enabled": True, "interval_ms": 5000}},
    {"name": "get_pin_summary", "description": "Rolling statistics of a sampled pin",
     "inputSchema": schema({"pin": {"type": "string", "description": "Pin name"}}, ["pin"])},
    {"name": "get_pin_buffer", "description": "Recent samples of a buffered pin",
     "inputSchema": schema({"pin": {"type": "string", "description": "Pin name"},
                            "limit": {"type": "integer", "description": "Max samples"}}, ["pin"])},
    {"name": "get_pin_events", "description": "Threshold state of a pin",
     "inputSchema": schema({"pin": {"type": "string", "description": "Pin name"}}, ["pin"])},
]


def sample_value(pin, n):
    """Sample n of a pin: the light sensor wanders, the temperature sits above its maximum."""
    return 400 + (n * 37) % 200 if pin == 14 else 40


class Device:
    def __init__(self, mistakes, error_id_zero):
        self.mistakes = set(mistakes)
        self.error_id_zero = error_id_zero
        self.levels = {13: False}
        self.duty = {9: 0}
        self.boot = time.monotonic()
        self.taken = {}  # sampled pin -> samples taken so far

    # ------------------------------------------------------------------ envelopes
    def reply(self, rid, result=None, error=None):
        """The response, members in another order than mcpsim's (result/error first)."""
        if "string-id-null" in self.mistakes and isinstance(rid, str):
            rid = None
        if error is not None:
            msg = {"error": error, "id": rid}
            if "error-no-jsonrpc" not in self.mistakes:
                msg["jsonrpc"] = "2.0"
            return msg
        return {"result": result, "id": rid, "jsonrpc": "2.0"}

    def err(self, rid, code, message):
        return self.reply(rid, error={"code": code, "message": message})

    # ------------------------------------------------------------------ one line
    def handle_line(self, line):
        """The reply (a dict) to one line, or None."""
        if self.error_id_zero:
            return self.err(0, -32700, "Parse error")
        text = line.strip(" \t\r")
        if not text:
            return self.err(None, -32700, "Parse error: empty line")
        try:
            req = json.loads(text)
        except (ValueError, RecursionError):
            return self.err(None, -32700, "Parse error")
        if not isinstance(req, dict):
            return self.err(None, -32600, "Invalid Request: not an object (no batches)")
        has_id = "id" in req
        rid = req.get("id")
        if has_id and not (rid is None or isinstance(rid, (str, int, float))) or isinstance(rid, bool):
            return self.err(None, -32600, "Invalid Request: bad id")
        if req.get("jsonrpc") != "2.0" or not isinstance(req.get("method"), str):
            return self.err(None, -32600, "Invalid Request")
        params = req.get("params", {})
        if not isinstance(params, (dict, list)):
            return self.err(None, -32600, "Invalid Request: params")
        resp = self.call(rid, req["method"], params if isinstance(params, dict) else {})
        if not has_id:
            if "notify-answered" in self.mistakes:
                resp["id"] = None
                return resp
            return None
        return resp

    # ------------------------------------------------------------------ methods
    def call(self, rid, method, p):
        if method == "get_info":
            return self.reply(rid, {"platform": "python", "pin_count": len(PINS), "device": "indep",
                                    "version": "2.1.0", "firmware": "mcpu_device.py"})
        if method == "list_tools":
            pins = PINS
            if "old-shapes" in self.mistakes:  # no pin has events, get_pin_events still listed
                pins = [dict(e, capabilities=dict(e["capabilities"], events=False))
                        if "capabilities" in e else e for e in PINS]
            return self.reply(rid, {"tools": TOOLS, "pins": pins, "version": "2.1.0",
                                    "device": "indep"})
        tool = {"gpio_write": self.gpio_write, "gpio_read": self.gpio_read,
                "pwm_write": self.pwm_write, "adc_read": self.adc_read,
                "read_uptime": self.uptime, "get_pin_summary": self.summary,
                "get_pin_buffer": self.buffer, "get_pin_events": self.events}.get(method)
        if tool is None:
            code = -32600 if "unknown-method-32600" in self.mistakes else -32601
            return self.err(rid, code, "Method not found")
        try:
            return self.reply(rid, tool(p))
        except ToolError as e:
            return self.err(rid, e.code, e.message)

    def pin(self, p, types):
        v = p.get("pin")
        if "pin" not in p:
            raise ToolError(-32602, "missing pin")
        if not isinstance(v, int) or isinstance(v, bool):
            raise ToolError(-32602, "pin must be an integer")
        entry = next((e for e in PINS if e["pin"] == v), None)
        if entry is None:
            raise ToolError(-32000, "no such pin")
        if entry["type"] not in types:
            raise ToolError(-32001, "pin %d is %s" % (v, entry["type"]))
        return entry

    def gpio_write(self, p):
        if not isinstance(p.get("value"), bool):
            raise ToolError(-32602, "value must be a boolean")
        e = self.pin(p, ("digital_output",))
        self.levels[e["pin"]] = p["value"]
        return {"value": p["value"], "name": e["name"], "pin": e["pin"]}

    def gpio_read(self, p):
        e = self.pin(p, ("digital_output", "digital_input"))
        return {"value": self.levels.get(e["pin"], False), "name": e["name"], "pin": e["pin"]}

    def pwm_write(self, p):
        d = p.get("duty")
        if not isinstance(d, int) or isinstance(d, bool):
            raise ToolError(-32602, "duty must be an integer")
        e = self.pin(p, ("pwm_output",))
        self.duty[e["pin"]] = max(0, min(255, d))
        return {"duty": self.duty[e["pin"]], "name": e["name"], "pin": e["pin"]}

    def adc_read(self, p):
        e = self.pin(p, ("adc_input",))
        return {"mv": 1651, "value": 512, "name": e["name"], "pin": e["pin"]}

    def uptime(self, p):
        seconds = int(time.monotonic() - self.boot)
        if "old-shapes" in self.mistakes:
            return {"seconds": seconds}
        return {"values": [seconds], "resource": "uptime", "type": "buffer"}

    # ------------------------------------------------------------------ sampling
    def sampled(self, p):
        """The sampled pin p names (number or name), with the samples due by now taken."""
        v = p.get("pin")
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise ToolError(-32602, "pin must be a pin name or number")
        e = next((e for e in PINS if e["pin"] == v or e["name"] == v), None)
        if e is None:
            raise ToolError(-32602, "Pin not found")
        if "sampling" in e:
            due = int((time.monotonic() - self.boot) * 1000 // e["sampling"]["interval_ms"])
            self.taken[e["pin"]] = due
        return e

    def history(self, e):
        n = self.taken.get(e["pin"], 0)
        return [sample_value(e["pin"], k) for k in range(1, n + 1)]

    def summary(self, p):
        e = self.sampled(p)
        if not e.get("capabilities", {}).get("summary"):
            raise ToolError(-32602, "Summary not enabled for this pin")
        h = self.history(e)
        if "old-shapes" in self.mistakes:
            return {"pin": e["pin"], "name": e["name"], "count": len(h),
                    "min": min(h) if h else None, "max": max(h) if h else None,
                    "avg": round(sum(h) / len(h), 2) if h else None, "latest": h[-1] if h else None}
        return {"samples": len(h), "avg": sum(h) / len(h) if h else 0.0,
                "max": max(h) if h else 0, "min": min(h) if h else 0, "latest": h[-1] if h else 0,
                "name": e["name"], "pin": e["pin"]}

    def buffer(self, p):
        e = self.sampled(p)
        limit = p.get("limit")
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
            raise ToolError(-32602, "limit must be an integer >= 0")
        if not e.get("capabilities", {}).get("buffer"):
            if "old-shapes" in self.mistakes:
                raise ToolError(-32602, "pin %d has no buffer capability" % e["pin"])
            return {"reason": "No ring buffer on this pin; use get_pin_summary",
                    "buffer_available": False, "pin": e["name"]}
        ring = self.history(e)[-e["sampling"]["buffer_size"]:]
        if "old-shapes" in self.mistakes:
            first = self.taken[e["pin"]] - len(ring) + 1
            samples = [{"seq": first + k, "t": (first + k) * e["sampling"]["interval_ms"],
                        "value": v} for k, v in enumerate(ring)]
            return {"pin": e["pin"], "name": e["name"], "samples": samples[:limit],
                    "next_since": self.taken[e["pin"]], "gap": 0, "more": False}
        return {"values": ring[:limit], "count": len(ring), "pin": e["name"]}

    def events(self, p):
        e = self.sampled(p)
        lo_hi = THRESHOLDS.get(e["pin"])
        h = self.history(e)
        found = []
        if lo_hi and h and h[-1] > lo_hi[1]:
            found.append({"threshold": lo_hi[1], "value": h[-1], "type": "threshold_high"})
        if lo_hi and h and h[-1] < lo_hi[0]:
            found.append({"threshold": lo_hi[0], "value": h[-1], "type": "threshold_low"})
        if "old-shapes" in self.mistakes:
            return {"events": [{"seq": 1, "t": 0, "pin": e["pin"], "name": e["name"], "kind": "rising",
                                "value": f["value"]} for f in found],
                    "next_since": 0, "dropped": 0, "pending": 0}
        return {"events": found, "pin": e["name"]}


class ToolError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def serve(dev, rfd, wfd, partial):
    """Reads rfd until EOF; answers on wfd. partial: each read is a message (a broken device)."""
    buf = b""
    while True:
        try:
            chunk = os.read(rfd, 16 if partial else 4096)  # partial: a 16-byte UART FIFO
        except OSError:
            return
        if not chunk:
            return
        pieces = []
        if partial:
            pieces = [chunk.decode("utf-8", "replace")]
        else:
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                pieces.append(line.decode("utf-8", "replace"))
        for line in pieces:
            out = dev.handle_line(line)
            if out is not None:
                data = (json.dumps(out, separators=(", ", ": ")) + "\n").encode()
                try:
                    os.write(wfd, data)
                except OSError:
                    return


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tcp", type=int)
    ap.add_argument("--pty", action="store_true")
    ap.add_argument("--pty-link")
    ap.add_argument("--mistake", action="append", default=[],
                    choices=["string-id-null", "notify-answered", "unknown-method-32600",
                             "error-no-jsonrpc", "old-shapes"])
    ap.add_argument("--partial-dispatch", action="store_true")
    ap.add_argument("--error-id-zero", action="store_true")
    a = ap.parse_args()
    if (a.tcp is None) == (not a.pty):
        ap.error("give --tcp PORT or --pty")
    dev = Device(a.mistake, a.error_id_zero)
    if a.pty:
        master, slave = pty.openpty()
        tty.setraw(slave)
        name = os.ttyname(slave)
        if a.pty_link:
            try:
                os.unlink(a.pty_link)
            except FileNotFoundError:
                pass
            os.symlink(name, a.pty_link)
        print("uart: " + name, flush=True)
        print("ready", flush=True)
        while True:  # a client that closes the port leaves the pty readable with EIO: wait
            r, _, _ = select.select([master], [], [], 1.0)
            if r:
                try:
                    serve(dev, master, master, a.partial_dispatch)
                except OSError:
                    pass
                time.sleep(0.05)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", a.tcp))
    srv.listen(4)
    print("tcp: 127.0.0.1:%d" % srv.getsockname()[1], flush=True)
    print("ready", flush=True)
    while True:
        conn, _ = srv.accept()
        with conn:
            serve(dev, conn.fileno(), conn.fileno(), a.partial_dispatch)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
