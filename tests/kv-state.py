#!/usr/bin/env python3
"""Every key of two RESP servers, compared.

usage: kv-state.py A B

A and B are ports, or paths of unix sockets. Each server's keys are read
with SCAN to its end, then each key's type and whole value (strings,
lists in order, hashes, sets and sorted sets as sorted members, streams
entry by entry) and whether it has a TTL. Prints "N keys, the same" and
exits 0, or the first keys that differ and exits 1.
"""
import socket
import sys


class Conn:
    def __init__(self, where):
        if "/" in where:
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.s.connect(where)
        else:
            self.s = socket.create_connection(("127.0.0.1", int(where)))
        self.s.settimeout(120)
        self.f = self.s.makefile("rb")

    def cmd(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.s.sendall(b"".join(out))
        return self.read()

    def read(self):
        line = self.f.readline()
        if not line:
            raise EOFError("the server closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)
            return data[:-2]
        if kind == b":":
            return int(rest)
        if kind == b"-":
            return ("error", rest)
        return rest


def dump(where):
    c = Conn(where)
    keys, cursor = set(), b"0"
    while True:
        cursor, batch = c.cmd("SCAN", cursor, "COUNT", 1000)
        keys.update(batch)
        if cursor == b"0":
            break
    state = {}
    for k in keys:
        t = c.cmd("TYPE", k)
        if t == b"string":
            v = c.cmd("GET", k)
        elif t == b"list":
            v = c.cmd("LRANGE", k, 0, -1)
        elif t == b"hash":
            h = c.cmd("HGETALL", k)
            v = sorted(zip(h[0::2], h[1::2]))
        elif t == b"set":
            v = sorted(c.cmd("SMEMBERS", k))
        elif t == b"zset":
            z = c.cmd("ZRANGE", k, 0, -1, "WITHSCORES")
            v = list(zip(z[0::2], z[1::2]))
        elif t == b"stream":
            v = c.cmd("XRANGE", k, "-", "+")
        else:
            v = None  # gone between SCAN and TYPE: expired
        if v is None:
            continue
        ttl = c.cmd("PTTL", k)
        state[k] = (t, v, "ttl" if ttl >= 0 else ttl)
    return state


def main():
    a, b = dump(sys.argv[1]), dump(sys.argv[2])
    if a == b:
        print("%d keys, the same" % len(a))
        return 0
    diff = sorted(set(a) ^ set(b))[:5]
    diff += sorted(k for k in set(a) & set(b) if a[k] != b[k])[:5]
    print("%d keys against %d; differ:" % (len(a), len(b)))
    for k in diff:
        print("  %r: %r / %r" % (k, repr(a.get(k))[:200], repr(b.get(k))[:200]))
    return 1


if __name__ == "__main__":
    sys.exit(main())
