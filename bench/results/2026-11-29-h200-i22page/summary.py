#!/usr/bin/env python3
# summary.py RUN... - the medians over the runs' log.txt (dev.sh's and dev2.sh's lines):
# kernel seconds, sys seconds and minor faults per program, build, workers and warmup.
# `summary.py run1 run2` (the first lease: dev.sh twice), `summary.py run3` (dev2.sh).
import re, statistics, sys, os
here = os.path.dirname(os.path.abspath(__file__))
rows = {}
for run in sys.argv[1:] or ("run1", "run2"):
    for line in open(os.path.join(here, run, "log.txt")):
        m = re.match(r"(\w+) (base|new|nobatch) w=(\d+) warmup=(\d) ?(\S*) \| (.*)", line)
        if not m: continue
        f = dict(kv.split("=") for kv in m.group(6).split())
        key = (m.group(1), m.group(2) + (" " + m.group(5) if m.group(5) else ""), int(m.group(3)), int(m.group(4)))
        rows.setdefault(key, []).append(f)
print("| program | build | workers | launch | runs | kernel ms (median) | min | sys s | minor faults |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for k in sorted(rows, key=lambda k: (-k[3], k[0], k[2], k[1])):
    r = rows[k]
    ks = [float(x["kernel_seconds"]) * 1e3 for x in r]
    med = lambda n: statistics.median(float(x[n]) for x in r)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {'second' if k[3] else 'first'} | {len(r)} | "
          f"{statistics.median(ks):.1f} | {min(ks):.1f} | {med('sys_s'):.2f} | {med('minflt'):.0f} |")
