#!/usr/bin/env python3
"""Differential fuzz of the kv example's protocol against redis-server.

usage: kv-fuzz.py REDIS KV_PORT SEED CASES

REDIS is redis-server's port, or the path of its unix socket.

Each case is one to three frames, most of them a valid request with one
to three bytes changed, added or removed (from an alphabet of the
protocol's own bytes). The same bytes go to both servers on a fresh
connection, which is then half-closed: each server answers what it
parsed and closes, on the end of input or on a protocol error, so the
whole reply can be read to its end with no timing at all. The replies
must be the same bytes. The servers see the same cases in the same
order, so their keyspaces stay the same too. Prints the first
differences and "cases N, differences D"; exits 1 when D > 0.
"""
import random
import socket
import sys

VALID = [
    b"*1\r\n$4\r\nPING\r\n", b"*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n",
    b"PING\r\n", b"ECHO \"a b\"\r\n", b"*0\r\n", b"\r\n",
    b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
    b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", b"ECHO 'x\\'y'\n",
    b"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n", b"ECHO \"\\x41\\n\"\n",
    b"*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\nx\r\n",
    b"*4\r\n$6\r\nLRANGE\r\n$1\r\nl\r\n$1\r\n0\r\n$2\r\n-1\r\n",
    b"*4\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\nf\r\n$1\r\n1\r\n",
]
ALPHABET = b"*$\r\n0123456789-+ \"'\\xabPINGECHOSETl\x00"


def mutate(rng, frame):
    b = bytearray(frame)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        if op < 0.4 and b:
            b[rng.randrange(len(b))] = rng.choice(ALPHABET)
        elif op < 0.7:
            i = rng.randrange(len(b) + 1)
            b[i:i] = bytes([rng.choice(ALPHABET)])
        elif b:
            del b[rng.randrange(len(b))]
    return bytes(b)


def connect(where):
    if isinstance(where, str):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(60)
        s.connect(where)
        return s
    return socket.create_connection(("127.0.0.1", where), timeout=60)


def talk(where, data):
    s = connect(where)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except ConnectionResetError:
        out += b"<reset>"
    s.close()
    return out


def main():
    redis = sys.argv[1] if "/" in sys.argv[1] else int(sys.argv[1])
    kport, seed, cases = (int(a) for a in sys.argv[2:5])
    rng = random.Random(seed)
    diffs = 0
    for _ in range(cases):
        data = b"".join(mutate(rng, rng.choice(VALID))
                        if rng.random() < 0.7 else rng.choice(VALID)
                        for _ in range(rng.randint(1, 3)))
        a, b = talk(redis, data), talk(kport, data)
        if a != b:
            diffs += 1
            if diffs <= 5:
                print("differ on %r:\n  redis %r\n  kv    %r" % (data, a, b))
    print("cases %d, differences %d" % (cases, diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
