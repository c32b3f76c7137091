#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sup-diff.py - the seeded scripts of tests/sup-diff.sh, and their
comparison.

  sup-diff.py gen SEED [SESSIONS [OPS]]   print the script of SEED
  sup-diff.py cmp OTP ACTORS SEED         compare the two outputs

A script is SESSIONS sessions (tests/sup-diff.erl says what each line
does): a strategy and an intensity (0-5, within an hour) drawn from the
seed, 0-5 initial children of ids a-f (restart types, shutdowns: brutal,
inf or 1-50 ms), a start, then OPS operations drawn with weights:
children made to exit by every kind of reason, starts made to fail or to
be ignored ahead, start_child (of new ids and of ids already there),
terminate, restart, delete, stops and starts of the supervisor. A
session stops the last one's supervisor first.

cmp prints, on a difference, the seed, the line where the outputs part,
the lines before it, both versions, and how to rerun; exit status 1.
"""
import random
import sys

IDS = "abcdef"
RESTARTS = ("permanent", "transient", "temporary")
STRATEGIES = ("one_for_one", "one_for_all", "rest_for_one")
REASONS = ("normal", "shutdown", "crash", "kill")


def shutdown(r):
    k = r.random()
    if k < 0.3:
        return "brutal"
    if k < 0.5:
        return "inf"
    return str(r.randint(1, 50))


def spec(r, i):
    return "%s %s %s" % (i, r.choice(RESTARTS), shutdown(r))


def gen(seed, sessions, ops):
    r = random.Random(seed)
    out = []
    for _ in range(sessions):
        out.append("session %s %d" % (r.choice(STRATEGIES), r.randint(0, 5)))
        for i in r.sample(IDS, r.randint(0, 5)):
            out.append("child " + spec(r, i))
        out.append("start")
        for _ in range(ops):
            k = r.random()
            i = r.choice(IDS)
            if k < 0.35:
                out.append("exit %s %s" % (i, r.choice(REASONS)))
            elif k < 0.45:
                out.append("failnext %s %d" % (i, r.choice((1, 1, 2, 3, 9))))
            elif k < 0.50:
                out.append("ignorenext %s %d" % (i, r.randint(1, 2)))
            elif k < 0.65:
                out.append("add " + spec(r, i))
            elif k < 0.73:
                out.append("term " + i)
            elif k < 0.81:
                out.append("restart " + i)
            elif k < 0.88:
                out.append("delete " + i)
            elif k < 0.90:
                out.append("stop")
            else:
                out.append("start")
    return out


def cmp(otp, ours, seed):
    a = open(otp).read().splitlines()
    b = open(ours).read().splitlines()
    for n in range(max(len(a), len(b))):
        x = a[n] if n < len(a) else "<end of output>"
        y = b[n] if n < len(b) else "<end of output>"
        if x != y:
            print("sup-diff: seed %s: the outputs part at line %d" %
                  (seed, n + 1))
            for line in a[max(0, n - 12):n]:
                print("   " + line)
            print("OTP: " + x)
            print("act: " + y)
            print("rerun: SUP_DIFF_SEEDS=%s make check "
                  "TESTS=tests/sup-diff.sh" % seed)
            return 1
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "gen":
        sessions = int(argv[3]) if len(argv) > 3 else 6
        ops = int(argv[4]) if len(argv) > 4 else 40
        for line in gen(int(argv[2]), sessions, ops):
            print(line)
        return 0
    if len(argv) == 5 and argv[1] == "cmp":
        return cmp(argv[2], argv[3], argv[4])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
