#!/usr/bin/env python3
"""Samples a running rowbridge for the end-to-end benchmarks (bench/incremental.sh, catchup.sh).

Every --period-ms it appends one line to --out:

    unix_time source_value metric_1 ... metric_n cpu_ticks rss_kb

source_value is the first column of --sql's one-row result on the source (through one persistent
`mariadb` client; -1 without --sql), metric_i the sum of all samples of the i-th --metrics name in
rowbridge's /metrics, cpu_ticks the user+sys clock ticks of --pid and rss_kb its VmRSS. A sample
whose /metrics cannot be read is skipped (rowbridge starting, or gone). One process does it all:
spawning clients per sample takes longer than the period on a loaded machine. Runs until SIGTERM
or until --pid exits.
"""

import argparse
import http.client
import os
import signal
import subprocess
import sys
import time


def read_metrics(port, names):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/metrics")
        response = conn.getresponse()
        if response.status != 200:
            return None
        body = response.read().decode("utf-8", "replace")
    finally:
        conn.close()
    sums = dict.fromkeys(names, 0.0)
    for line in body.splitlines():
        if not line or line[0] == "#":
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name in sums:
            sums[name] += float(line.rsplit(" ", 1)[1])
    return [sums[n] for n in names]


def read_proc(pid):
    with open(f"/proc/{pid}/stat") as f:
        # The command may contain spaces: fields after the closing parenthesis.
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return ticks, rss


class SourceQuery:
    """One `mariadb` client kept open; each query's single-value answer is read back."""

    def __init__(self, sql):
        env = dict(os.environ, MYSQL_PWD=os.environ["ROWBRIDGE_TEST_MYSQL_PASSWORD"])
        self.sql = sql.rstrip(";") + ";\n"
        self.proc = subprocess.Popen(
            ["mariadb", "--no-defaults", "--protocol=TCP", "-h127.0.0.1",
             "-P" + os.environ["ROWBRIDGE_TEST_MYSQL_PORT"],
             "-u" + os.environ["ROWBRIDGE_TEST_MYSQL_USER"], "-N", "-B", "--unbuffered"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)

    def value(self):
        self.proc.stdin.write(self.sql)
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the mariadb client of the sampler exited")
        return line.split("\t")[0].strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--period-ms", type=float, default=200)
    parser.add_argument("--sql", default="")
    parser.add_argument("--metrics", required=True, help="comma-separated metric names")
    args = parser.parse_args()
    names = args.metrics.split(",")
    source = SourceQuery(args.sql) if args.sql else None

    stop = False

    def on_term(signum, frame):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    period = args.period_ms / 1000
    next_tick = time.monotonic()
    with open(args.out, "a") as out:
        while not stop:
            now = time.time()
            try:
                src = source.value() if source else "-1"
                metrics = read_metrics(args.port, names)
                ticks, rss = read_proc(args.pid)
            except (OSError, http.client.HTTPException):
                metrics = None
                if not os.path.exists(f"/proc/{args.pid}"):
                    break
            if metrics is not None:
                values = " ".join(f"{v:.17g}" for v in metrics)
                out.write(f"{now:.6f} {src} {values} {ticks} {rss}\n")
                out.flush()
            next_tick += period
            delay = next_tick - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                next_tick = time.monotonic()
    if source:
        source.proc.stdin.close()
        source.proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
