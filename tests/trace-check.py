#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# trace-check.py TRACE PIDS: the trace of `trace_run script` (tests/trace.sh)
# parsed back. PIDS holds "NAME PID" lines. Prints one line per failed
# check; exit 0 when all hold, 3 when only the steal is missing (the
# caller runs the script again: a steal needs the other worker idle at
# the right moment), 1 otherwise.
import json
import sys
from collections import defaultdict

trace = json.load(open(sys.argv[1]))
pids = {}
for line in open(sys.argv[2]):
    name, pid = line.split()
    pids[name] = int(pid)
ev = trace["traceEvents"]
bad = []


def check(cond, what):
    if not cond:
        bad.append(what)


meta = {e["tid"]: e["args"]["name"] for e in ev
        if e["ph"] == "M" and e["name"] == "thread_name"}
names = sorted(meta.values())
check(any(n.startswith("worker 0 (cpu ") for n in names), "worker 0 named")
check(any(n.startswith("worker 1 (cpu ") for n in names), "worker 1 named")
check("reactor" in names, "reactor named")
check(trace["otherData"]["workers"] == 2, "otherData.workers")


def has(ph, name, **args):
    for e in ev:
        if e["ph"] == ph and e["name"] == name and all(
                e.get("args", {}).get(k) == v for k, v in args.items()):
            return True
    return False


for who in ("echoer", "sleeper", "reader", "victim", "spinner"):
    check(has("i", "spawn", pid=pids[who], parent=pids["main"]),
          "spawn of %s by main" % who)
    check(has("i", "exit", pid=pids[who]), "exit of %s" % who)
check(has("i", "exit", pid=pids["victim"], reason=-2),
      "victim's exit reason is killed")
check(has("i", "kill", pid=pids["victim"], by=pids["main"]), "kill event")
check(has("i", "timer", pid=pids["sleeper"], kind="timeout"), "timer event")
# a kernel or seccomp profile without io_uring: the read fails at once
# with ENOSYS (the runtime's fallback), so it has no operation to trace
noring = "noring" in pids
if not noring:
    check(has("b", "read", pid=pids["reader"]), "I/O begin of the read")
    check(any(e["ph"] == "e" and e["name"] == "read" and
              e["args"].get("res") == 4 for e in ev), "I/O end of the read")
runs = [e for e in ev if e["ph"] == "X" and e["cat"] == "run"]
check(any(e["args"]["pid"] == pids["main"] and e["name"] == "trace-main"
          for e in runs), "main's slices named by its registered name")
check(any(e["args"]["pid"] == pids["echoer"] and e["name"] == "trace_echoer"
          for e in runs), "echoer's slices named by its entry function")
check(noring or any(e["args"]["pid"] == pids["reader"] and
                   e["args"]["why"] == "io" for e in runs),
      "the reader's slice ends for I/O")
check(any(e["args"]["pid"] == pids["victim"] and e["args"]["why"] == "exit"
          for e in runs), "the victim's last slice ends with its exit")
check(all(e["args"]["why"] in ("receive", "yield", "io", "exit", "muted")
          for e in runs), "every slice says why it ended")
check(any(e["name"] == "loop" and e["ph"] == "X" for e in ev),
      "reactor loops")
starts = {e["id"] for e in ev if e["ph"] == "s"}
ends = [e["id"] for e in ev if e["ph"] == "f"]
check(ends and all(i in starts for i in ends), "every flow end has a start")

# per track: slices never overlap, timestamps never go back
by_tid = defaultdict(list)
for e in ev:
    if e["ph"] != "M":
        by_tid[e["tid"]].append(e)
for tid, es in by_tid.items():
    last = -1.0
    for e in es:
        if e["ts"] < last:
            bad.append("tid %d: ts %.3f after %.3f" % (tid, e["ts"], last))
            break
        last = e["ts"]
    if meta.get(tid, "").startswith("worker"):
        sl = [e for e in es if e["ph"] == "X"]
        for a, b in zip(sl, sl[1:]):
            if a["ts"] + a["dur"] > b["ts"] + 0.0015:
                bad.append("tid %d: slice at %.3f overlaps the next at %.3f"
                           % (tid, a["ts"], b["ts"]))
                break
stole = any(e["ph"] == "i" and e["name"] == "steal" and
            e["args"]["count"] >= 1 for e in ev)
for b in bad:
    print("trace-check: " + b)
if bad:
    sys.exit(1)
if not stole:
    print("trace-check: no steal in this run")
    sys.exit(3)
print("trace-check: %d events, every check holds%s" % (
    len(ev), " (no io_uring: the I/O checks left out)" if noring else ""))
