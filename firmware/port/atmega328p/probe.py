#!/usr/bin/env python3
"""probe.py: runs fw_atmega328p.elf under mcpsim-avr (sim/emu) and sends it the MCP/U requests of
its heaviest paths over the pty: each answer is printed, and mcpsim-avr's stack high-water report
at the end. Usage: probe.py MCPSIM_AVR ELF"""
import json, os, select, signal, subprocess, sys, termios, time, tty

emu, elf = sys.argv[1], sys.argv[2]
p = subprocess.Popen([emu, "--quiet", elf], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
pty = None
while True:
    line = p.stdout.readline()
    if not line:
        sys.exit("mcpsim-avr ended: " + p.stderr.read())
    if line.startswith("uart: "):
        pty = line.split()[1]
    if line.strip() == "ready":
        break
fd = os.open(pty, os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd)

def read_lines(n, timeout=5.0):
    buf, out, end = b"", [], time.time() + timeout
    while len(out) < n and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            buf += os.read(fd, 4096)
            while b"\n" in buf:
                l, buf = buf.split(b"\n", 1)
                out.append(l.decode("utf-8", "replace"))
    return out

def send(raw, expect=1):
    os.write(fd, raw.encode() if isinstance(raw, str) else raw)
    return read_lines(expect)

reqs = [
    '{"jsonrpc":"2.0","id":1,"method":"get_info"}',
    '{"jsonrpc":"2.0","id":2,"method":"list_tools"}',
    '{"jsonrpc":"2.0","id":3,"method":"gpio_write","params":{"pin":"led","value":true}}',
    '{"jsonrpc":"2.0","id":4,"method":"gpio_write","params":{"pin":13,"value":"high"}}',
    '{"jsonrpc":"2.0","id":5,"method":"gpio_read","params":{"pin":"button"}}',
    '{"jsonrpc":"2.0","id":6,"method":"gpio_read","params":{"pin":"nope"}}',
    '{"jsonrpc":"2.0","id":7,"method":"pwm_write","params":{"pin":9,"duty":128}}',
    '{"jsonrpc":"2.0","id":8,"method":"pwm_write","params":{"pin":9,"duty":256}}',
    '{"jsonrpc":"2.0","id":9,"method":"pwm_write","params":{"pin":"led","duty":10}}',
    '{"jsonrpc":"2.0","id":10,"method":"pwm_write","params":{"pin":9,"duty":12.5,"bogus":1}}',
    '{"jsonrpc":"2.0","id":11,"method":"pwm_write","params":{"pin":9,"duty":10,"frequency":1000}}',
    '{"jsonrpc":"2.0","id":111,"method":"pwm_write","params":{"pin":9,"duty":10,"frequency":40000}}',
    '{"jsonrpc":"2.0","id":112,"method":"pwm_write","params":{"pin":3,"duty":10,"frequency":1000}}',
    '{"jsonrpc":"2.0","id":12,"method":"adc_read","params":{"pin":"sensor"}}',
    '{"jsonrpc":"2.0","id":13,"method":"adc_read","params":{"pin":2}}',
    '{"jsonrpc":"2.0","id":14,"method":"adc_read"}',
    '{"jsonrpc":"2.0","id":15,"method":"no_such"}',
    '{"jsonrpc":"2.0","id":16,"method":"get_info",}',
    '{"jsonrpc":"1.0","id":17,"method":"get_info"}',
    '[{"jsonrpc":"2.0","id":18,"method":"get_info"}]',
    '{"jsonrpc":"2.0","id":"caf\\u00e9 \\"q\\" \\n","method":"get_info"}',
    '{"jsonrpc":"2.0","id":19,"method":"list_tools","params":{"with_user_tools":true}}',
    '{"jsonrpc":"2.0","id":20,"method":"gpio_write","params":{"pin":"a-pin-name-that-is-far-too-long-for-the-scratch-buffer-of-the-call","value":true}}',
]
for r in reqs:
    for l in send(r + "\n"):
        print(">>", r[:90]); print("<<", l)
over = '{"jsonrpc":"2.0","id":21,"method":"get_info","p":"' + "x" * 400 + '"}\n'
print(">> overlong line (%d bytes)" % len(over)); print("<<", send(over))
three = "".join('{"jsonrpc":"2.0","id":%d,"method":"%s"}\n' % (30 + i, m) for i, m in enumerate(["get_info", "no_such", "get_info"]))
print(">> three pipelined"); [print("<<", l) for l in send(three, 3)]
p.send_signal(signal.SIGTERM)
_, err = p.communicate(timeout=10)
print(err.strip())
