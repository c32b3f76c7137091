#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# kv-burst.py - one burst of connections to a RESP server: N clients
# connect at once, each sends PING once connected, every reply is read,
# then all close. For scripts/kv-bursts.sh (RSS after bursts) and
# tests/nofile.sh (servers out of descriptors).
#
#   kv-burst.py --port P [--host H] [--conns N] [--timeout S] [--hold]
#               [--echo]
#
# Prints one line: "conns N pong N refused N silent N other N", where
# pong is a +PONG, refused a "-ERR max number of clients reached" then a
# close (with --echo, an echo server's: pong is PING's bytes echoed,
# refused a close with nothing), silent a client that got neither a
# reply nor a close within --timeout seconds (a hang), other anything
# else (a reset, another reply). With --hold the connections that got
# their reply stay open until stdin ends (the tests keep them while they
# check that a new client is refused, then let go). Exits 0 when no
# client was silent or other, 1 otherwise.
import argparse
import selectors
import socket
import sys
import time

PING = b"PING\r\n"
PONG = b"+PONG\r\n"
REFUSED = b"-ERR max number of clients reached\r\n"


def connect_all(host, port, n):
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect((host, port))
        except BlockingIOError:
            pass
        socks.append(s)
    return socks


def run(host, port, n, timeout, pong, refused):
    socks = connect_all(host, port, n)
    sel = selectors.DefaultSelector()
    got = {}
    for s in socks:
        sel.register(s, selectors.EVENT_WRITE)
    pending = set(socks)
    sent = set()
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for key, ev in sel.select(max(0.0, deadline - time.monotonic())):
            s = key.fileobj
            if s not in sent:
                try:
                    s.send(PING)
                except OSError:
                    got[s] = b"!reset"
                    pending.discard(s)
                    sel.unregister(s)
                    continue
                sent.add(s)
                got[s] = b""
                sel.modify(s, selectors.EVENT_READ)
                continue
            try:
                data = s.recv(4096)
            except OSError:
                data = None
            if data:
                got[s] += data
                if got[s] == pong:
                    pending.discard(s)
                    sel.unregister(s)
                continue
            if data is None and not got[s]:
                got[s] = b"!reset"
            pending.discard(s)  # closed (after a refusal, say)
            sel.unregister(s)
    counts = {"pong": 0, "refused": 0, "silent": 0, "other": 0}
    for s in socks:
        r = got.get(s, b"")
        if s in pending:
            counts["silent"] += 1
        elif r == pong:
            counts["pong"] += 1
        elif r == refused or (not refused and r == b"!reset"):
            # an echo server's close, abortive when the PING was unread
            counts["refused"] += 1
        else:
            counts["other"] += 1
    return socks, got, counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--conns", type=int, default=2000)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--hold", action="store_true")
    ap.add_argument("--echo", action="store_true")
    a = ap.parse_args()
    pong, refused = (PING, b"") if a.echo else (PONG, REFUSED)
    socks, got, c = run(a.host, a.port, a.conns, a.timeout, pong, refused)
    print("conns %d pong %d refused %d silent %d other %d" %
          (a.conns, c["pong"], c["refused"], c["silent"], c["other"]),
          flush=True)
    for s in socks:
        if not a.hold or got.get(s) != pong:
            s.close()
    if a.hold:
        sys.stdin.read()
    for s in socks:
        s.close()
    return 0 if c["silent"] == 0 and c["other"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
