#!/usr/bin/env python3
# gen-big.py OUT [ITERS]: a big trace for tests/trace-summary.sh, made at
# test time (about 200,000 events with the default 16000): 4 workers and a
# reactor, all on one line (the reader must not need line breaks). Each
# worker repeats ITERS times a 10 us round: a 6 us run slice of one of 100
# processes, 1 us searching, 3 us parked; every 100th round it steals 2
# processes from the next worker; the reactor pairs ITERS / 8 reads of
# 5 us. So: busy 60.0%, search 10.0%, parked 30.0%, each matrix cell
# (w, w + 1 mod 4) ITERS / 100 * 2, each process 4 * ITERS / 100 runs.
import sys

out = sys.argv[1]
iters = int(sys.argv[2]) if len(sys.argv) > 2 else 16000
ev = ['{"ph":"M","pid":1,"tid":0,"name":"process_name",'
      '"args":{"name":"big"}}']
for w in range(4):
    ev.append('{"ph":"M","pid":1,"tid":%d,"name":"thread_name",'
              '"args":{"name":"worker %d (cpu %d)"}}' % (w + 1, w, w))
ev.append('{"ph":"M","pid":1,"tid":5,"name":"thread_name",'
          '"args":{"name":"reactor"}}')
for i in range(iters):
    t = i * 10
    for w in range(4):
        tid = w + 1
        pid = 8388609 + i % 100
        ev.append('{"ph":"X","pid":1,"tid":%d,"ts":%d.000,"dur":6.000,'
                  '"name":"p\\u00e9%d","cat":"run","args":{"pid":%d,'
                  '"reductions":1,"why":"yield"}}' % (tid, t, pid, pid))
        ev.append('{"ph":"X","pid":1,"tid":%d,"ts":%d.000,"dur":1.000,'
                  '"name":"search","cat":"idle"}' % (tid, t + 6))
        ev.append('{"ph":"X","pid":1,"tid":%d,"ts":%d.000,"dur":3.000,'
                  '"name":"parked","cat":"idle"}' % (tid, t + 7))
        if i % 100 == 99:
            ev.append('{"ph":"i","s":"t","pid":1,"tid":%d,"ts":%d.500,'
                      '"name":"steal","cat":"sched","args":{"victim":%d,'
                      '"count":2}}' % (tid, t + 6, (w + 1) % 4))
    if i % 8 == 0:
        ev.append('{"ph":"b","pid":1,"tid":5,"ts":%d.250,"id":"0x%x",'
                  '"name":"read","cat":"io","args":{"fd":5}}' % (t, i))
        ev.append('{"ph":"e","pid":1,"tid":5,"ts":%d.250,"id":"0x%x",'
                  '"name":"read","cat":"io","args":{"res":1}}' % (t + 5, i))
with open(out, "w") as f:
    f.write('{"otherData":{"workers":4},"traceEvents":[')
    f.write(",".join(ev))
    f.write("]}")
