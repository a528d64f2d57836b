#!/usr/bin/env python3
"""answer-latency.py: sends MCP/U requests one at a time to a chip under mcpsim-avr and counts
the answers that come later than a threshold (a stalled request shows up here; docs/emulators.md).

usage: answer-latency.py MCPSIM_AVR FIRMWARE.elf [REQUESTS] [--late SECONDS]

For each late answer it prints the request, what had arrived of the answer and emu.stats (the
chip's receive FIFO, flags and queues) at that moment. Exits 1 when an answer never came
(3 s after being reported late), 0 otherwise; the last line gives the count and percentiles."""
import json
import os
import select
import socket
import subprocess
import sys
import time
import tty


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    late = 1.0
    if '--late' in sys.argv:
        late = float(sys.argv[sys.argv.index('--late') + 1])
        args.remove(sys.argv[sys.argv.index('--late') + 1])
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    emu, elf = args[0], args[1]
    count = int(args[2]) if len(args) > 2 else 1000
    proc = subprocess.Popen([emu, '--quiet', '--control', '127.0.0.1:0', elf],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    pty = ctl = None
    for line in proc.stdout:
        line = line.strip()
        if line.startswith('uart: '):
            pty = line[6:]
        elif line.startswith('control: '):
            ctl = line[9:]
        elif line == 'ready':
            break
    if not pty or not ctl:
        print('answer-latency: mcpsim-avr did not start', file=sys.stderr)
        return 2
    fd = os.open(pty, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    host, port = ctl.rsplit(':', 1)
    ctl_file = socket.create_connection((host, int(port))).makefile('rw')

    def stats():
        ctl_file.write('{"jsonrpc":"2.0","id":1,"method":"emu.stats"}\n')
        ctl_file.flush()
        return json.loads(ctl_file.readline())['result']

    time.sleep(1.0)  # the chip's start-up
    kinds = ['{"jsonrpc":"2.0","id":%d,"method":"get_info"}',
             '{"jsonrpc":"2.0","id":%d,"method":"gpio_read","params":{"pin":13}}',
             '{"jsonrpc":"2.0","id":%d,"method":"list_tools"}',
             '{"jsonrpc":"2.0","id":%d,"method":"adc_read","params":{"pin":14}}']
    buf, lates, lost, times = b'', 0, 0, []
    for i in range(1, count + 1):
        req = (kinds[i % len(kinds)] % i).encode() + b'\n'
        t0 = time.monotonic()
        os.write(fd, req)
        deadline, reported = t0 + late, False
        while True:
            if b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                try:
                    if json.loads(line).get('id') == i:
                        break
                except ValueError:
                    print('answer-latency: not JSON:', line[:80])
                continue
            now = time.monotonic()
            if now > deadline:
                if reported:
                    print('  no answer 3 s after that: lost')
                    lost += 1
                    break
                lates += 1
                reported = True
                print(f'late: request {i} {req[:48]!r}; arrived so far {buf[:60]!r}; '
                      f'emu.stats {json.dumps(stats())}')
                deadline = now + 3.0
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                buf += os.read(fd, 4096)
        times.append(time.monotonic() - t0)
    proc.terminate()
    proc.wait()
    times.sort()
    pct = lambda q: times[min(len(times) - 1, int(q * len(times)))] * 1e3
    print(f'{count} requests: {lates} later than {late:g} s, {lost} never answered; '
          f'p50 {pct(0.5):.1f} ms, p99 {pct(0.99):.1f} ms, max {times[-1] * 1e3:.1f} ms')
    return 1 if lost else 0


if __name__ == '__main__':
    sys.exit(main())
