#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The time from a restart's exec to its first id after a SIGKILL, per start mode.

A real-process measurement, not a test: it prints its figures and asserts nothing about time
(registered nowhere in ctest). For each mode and each of N rounds, on a fresh state file:

  run A: `cosid next -n 0 --slot 1 --state-file F [--start borrow]`, its first id read, then left
         to run for --run seconds (its output is not drained: it blocks in write once the pipe is
         full, still holding the window it made durable), then SIGKILLed;
  run B: the same command, timed from just before the fork and exec to the first id's line on
         its standard output (the pipe, unbuffered on this side), then SIGKILLed as well.

Run A's first ceiling is its start plus ahead (10 s by default) and is not renewed before ahead/2
remain, so after a run of 2 s the restart's floor lies about 8 s ahead of the clock: wait mode
waits about that long, borrow mode issues at once. Each round also checks that B's first id lies
past A's first id (cosid parse), a sanity check only; the repeat checks are the crash tests'.

  tests/bench/restart_after_kill.py --cosid build/release/src/cli/cosid [--rounds 10] [--run 2]
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def first_line(fd, deadline):
    """The first line written to `fd`, read unbuffered; None at EOF or past `deadline`."""
    data = b""
    while b"\n" not in data:
        if time.monotonic() > deadline:
            return None
        chunk = os.read(fd, 64)
        if not chunk:
            return None
        data += chunk
    return data.split(b"\n", 1)[0].decode()


def start(cosid, state, mode):
    args = [cosid, "next", "-n", "0", "--slot", "1", "--state-file", state]
    if mode != "wait":
        args += ["--start", mode]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)


def kill(process):
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stdout.close()


def round_trip(cosid, directory, mode, run_seconds, index):
    state = os.path.join(directory, "state-%s-%d" % (mode, index))
    a = start(cosid, state, mode)
    a_first = first_line(a.stdout.fileno(), time.monotonic() + 30)
    if a_first is None:
        kill(a)
        sys.exit("run A of %s round %d printed no id" % (mode, index))
    time.sleep(run_seconds)
    kill(a)
    began = time.monotonic()
    b = start(cosid, state, mode)
    b_first = first_line(b.stdout.fileno(), began + 60)
    elapsed_ms = (time.monotonic() - began) * 1000.0
    kill(b)
    if b_first is None:
        sys.exit("run B of %s round %d printed no id" % (mode, index))
    if int(b_first) <= int(a_first):
        sys.exit("%s round %d: B's first id %s is not past A's first %s" %
                 (mode, index, b_first, a_first))
    return elapsed_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cosid", default="build/release/src/cli/cosid")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--run", type=float, default=2.0, help="seconds run A runs")
    parser.add_argument("--modes", default="wait,borrow")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cosid-restart-") as directory:
        for mode in options.modes.split(","):
            figures = [round_trip(options.cosid, directory, mode, options.run, i)
                       for i in range(options.rounds)]
            print("start %-6s  rounds %d  exec to first id after SIGKILL: median %.1f ms, "
                  "max %.1f ms, min %.1f ms" %
                  (mode, len(figures), statistics.median(figures), max(figures), min(figures)),
                  flush=True)


if __name__ == "__main__":
    main()
