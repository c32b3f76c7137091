#!/usr/bin/env python3
"""A write load on a kv server until it dies, recording what it answered.

usage: kv-aof-load.py PORT CONNS PROGRESS RESULT
       kv-aof-load.py --check PORT RESULT

CONNS connections each SET key:<conn>:<i> to i, for i = 0, 1, 2, ...,
one at a time, and count each +OK; every 100 acknowledgments the total
goes to the file PROGRESS (so a test can wait for the load to be under
way without a clock). When the server goes away (the test kills it) each
connection stops; RESULT gets one line per connection: "conn last age0
age1 ...", the last i acknowledged (-1: none) and how many seconds
before the end of the connection each i was acknowledged. Exits 0.

--check reads every connection's keys back from a (restarted) server:
what was kept of each connection's writes must be a prefix (key i there
means every key before it is, with its value), since records reach the
file in their order. Prints "acknowledged A, kept K, lost L, the lost
acknowledged in the last S s" and exits 0 (1 if the prefix is broken).
"""
import socket
import sys
import threading
import time


def worker(port, cid, acks, lock, progress, total):
    last, times = -1, []
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        f = s.makefile("rb")
        i = 0
        while True:
            k = b"key:%d:%d" % (cid, i)
            v = b"%d" % i
            s.sendall(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n"
                      % (len(k), k, len(v), v))
            if f.readline() != b"+OK\r\n":
                break
            last = i
            times.append(time.monotonic())
            i += 1
            with lock:
                total[0] += 1
                if total[0] % 100 == 0:
                    with open(progress, "w") as p:
                        p.write("%d\n" % total[0])
    except (OSError, EOFError):
        pass
    end = time.monotonic()
    acks[cid] = (last, [end - t for t in times])


def check(port, result):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    f = s.makefile("rb")
    acked = kept = lost = 0
    oldest = 0.0
    ok = True
    for line in open(result):
        words = line.split()
        cid, last = int(words[0]), int(words[1])
        ages = [float(a) for a in words[2:]]
        acked += last + 1
        present = []
        for i in range(last + 1):
            k = b"key:%d:%d" % (cid, i)
            s.sendall(b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(k), k))
            head = f.readline()
            if head.startswith(b"$-1"):
                present.append(False)
                continue
            v = f.read(int(head[1:]) + 2)[:-2]
            present.append(v == b"%d" % i)
        n = present.index(False) if False in present else len(present)
        if any(present[n:]):
            print("connection %d: key %d lost, a later one kept" % (cid, n))
            ok = False
        kept += n
        lost += last + 1 - n
        if last + 1 - n:
            oldest = max(oldest, ages[n])
    print("acknowledged %d, kept %d, lost %d, the lost acknowledged in "
          "the last %.3f s" % (acked, kept, lost, oldest))
    return 0 if ok else 1


def main():
    if sys.argv[1] == "--check":
        return check(int(sys.argv[2]), sys.argv[3])
    port, conns = int(sys.argv[1]), int(sys.argv[2])
    progress, result = sys.argv[3], sys.argv[4]
    acks, lock, total = {}, threading.Lock(), [0]
    ts = [threading.Thread(target=worker,
                           args=(port, c, acks, lock, progress, total))
          for c in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    with open(result, "w") as r:
        for c in range(conns):
            r.write("%d %d %s\n" % (c, acks[c][0],
                                    " ".join("%.3f" % a for a in acks[c][1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
