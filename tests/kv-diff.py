#!/usr/bin/env python3
"""The differential test of the kv example against redis-server 7.0.

usage: kv-diff.py --redis WHERE --kv WHERE --seed S --commands N
                  [--batch-max B] [--quiet] [--all-commands] [--kv-is-redis]
                  [--kv-cmd CMD] [--reduce-seconds T] [--timeout T]
                  [--no-approx-trim] [--skip CMD,...] [--stats] [--resp3]

WHERE is a TCP port on 127.0.0.1 or the path of a unix socket.

A seeded generator (random.Random(S): the same seed, the same stream)
writes N commands of every family kv_server implements (strings, keys,
lists, hashes, sets, sorted sets, streams, connection, and unknown
commands), over a pool of 17 keys that every type shares (each family
has keys of its own it takes 9 times in 10), so that each command also
meets every other type (WRONGTYPE); values are integers, floats, long
(past the 64-byte listpack limit), empty or binary, and now and then a
key gets enough members to change its encoding (hashes, lists and zsets
past 128, sets past 512 integers), or an MSET hundreds of keys for SCAN
and KEYS. Some commands are wrong on purpose: truncated (wrong arity),
an argument too many, bad options, non-integers, out-of-range counts.
Expiries are always 100 s or more ahead, far in the future (2100) or in
the past where that deletes the key at once, so that no TTL can pass
during a run.

The commands go, in pipelined batches of 1 to B (the same bytes to
both), to redis-server and to kv_server; one reply is read for each
command and every reply is compared, its type first (a RESP3 map is not
an array, a set not an array, a double not a bulk). With --resp3 both
connections start with HELLO 3 (and FLUSHALL, before a replay, puts the
protocol back, as the stream puts it back after a RESET). Before the
stream, COMMAND DOCS and COMMAND whole are compared for kv_server's
commands (below). They may rightly differ only where redis's own replies
depend on chance, the clock or which server it is, and only there are
replies normalized:
  - TTL, PTTL (EXPIRETIME, PEXPIRETIME): -2 and -1 exactly, a positive
    value within twice the longest batch's time (+1 for rounding) of
    redis's;
  - SMEMBERS SINTER SUNION SDIFF KEYS HKEYS HVALS: sorted; HGETALL and
    CONFIG GET (arrays, or RESP3's maps): sorted pairs;
  - HELLO, CLIENT, COMMAND: what says which server it is masked (the
    list above MASKED), COMMAND INFO, DOCS and LIST compared for what
    kv_server has, DOCS as the hints redis-cli makes of them;
  - SPOP SRANDMEMBER (HRANDFIELD ZRANDMEMBER RANDOMKEY): not compared
    but checked: as many elements as redis's, distinct where redis's
    rules say so, each one a member (asked of redis-server after the
    batch, which such a command ends); after an SPOP whose elements
    differ, kv_server's set is made redis's again (SADD what kv_server
    popped, SREM what redis-server popped, on kv_server alone);
  - SCAN SSCAN HSCAN ZSCAN: a step of its own now and then that
    iterates both servers to cursor 0 (with MATCH, COUNT, TYPE) and
    compares the sets of what each returned; in the stream itself only
    forms that are errors for any keyspace (a bad cursor, COUNT 0).

The commands generated are those kv_server's COMMAND lists (all of them
with --all-commands or --kv-is-redis): one of them that has no generator
here, and is not in EXEMPT (with the reason), fails the run.

On the first mismatch: the seed, the command's index, the command and
both replies, then the shortest stream found that still fails on the
same command (the prefix up to it, reduced by delta debugging: chunks
removed and the rest replayed on both servers after FLUSHALL, for
--reduce-seconds), as redis-cli lines, and the command line that reruns
it; exit 1. When kv_server dies, --kv-cmd (how to start a fresh one,
which prints "listening on HOST:PORT") lets the reduction go on. On
success one line: "N commands, seed S, 0 mismatches (K pipelined
batches)", exit 0.

--kv-is-redis: --kv is a second redis-server (the test of this test:
the two must always agree). --no-approx-trim: no "~" in XADD and XTRIM
(what "~" trims is the layout of redis's stream nodes, 100 entries or
4096 bytes, rather than a rule: for a server that does not keep them).
"""
import argparse
import ctypes
import os
import random
import select
import shlex
import signal
import socket
import subprocess
import sys
import time

# ---------------------------------------------------------------- RESP ---


def encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class ProtocolError(Exception):
    pass


def parse(buf, pos):
    """One RESP2 or RESP3 reply from buf at pos: (reply, next pos), or
    None if buf does not hold all of it yet. A reply is a tuple: ('+',
    bytes), ('-', bytes), (':', int), ('$', bytes or None), ('*', list or
    None); RESP3's ('_', None), (',', the double's bytes), ('#', bool),
    ('(', int), ('=', bytes after "txt:"), ('!', bytes), ('~', list),
    ('>', list), ('%', list of (key, value))."""
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return None
    t = chr(buf[pos])
    line = bytes(buf[pos + 1:end])
    if t in "+-,":
        return (t, line), end + 2
    if t == "_":
        if line:
            raise ProtocolError("null with %r" % line)
        return ("_", None), end + 2
    if t == "#":
        if line not in (b"t", b"f"):
            raise ProtocolError("boolean %r" % line)
        return ("#", line == b"t"), end + 2
    try:
        n = int(line)
    except ValueError:
        raise ProtocolError("bad length or integer %r" % line)
    if t in ":(":
        return (t, n), end + 2
    if t in "$=!":
        if n < 0 and t == "$":
            return ("$", None), end + 2
        if n < 0:
            raise ProtocolError("%s of %d" % (t, n))
        if len(buf) < end + 4 + n:
            return None
        if buf[end + 2 + n:end + 4 + n] != b"\r\n":
            raise ProtocolError("bulk of %d not ended by CRLF" % n)
        data = bytes(buf[end + 2:end + 2 + n])
        if t == "=":
            if data[3:4] != b":":
                raise ProtocolError("verbatim string %r" % data[:8])
            data = data[4:]
        return (t, data), end + 4 + n
    if t in "*~>%":
        if n < 0 and t == "*":
            return ("*", None), end + 2
        if n < 0:
            raise ProtocolError("%s of %d" % (t, n))
        items = []
        p = end + 2
        for _ in range(2 * n if t == "%" else n):
            r = parse(buf, p)
            if r is None:
                return None
            items.append(r[0])
            p = r[1]
        if t == "%":
            items = list(zip(items[::2], items[1::2]))
        return (t, items), p
    raise ProtocolError("reply type byte %r" % t)


def show(reply, limit=300):
    """A reply as text, cut to limit characters."""
    def s(r):
        t, v = r
        if t in "*~>":
            return "nil-array" if v is None else \
                t.replace("*", "") + "[" + ", ".join(s(x) for x in v) + "]"
        if t == "%":
            return "{" + ", ".join(s(k) + ": " + s(x) for k, x in v) + "}"
        if t == "$":
            return "nil" if v is None else repr(v)
        if t == "_":
            return "null"
        if t == ":":
            return "(integer) %d" % v
        if t == ",":
            return "(double) %s" % v.decode()
        return "%s%r" % (t, v)
    if isinstance(reply, str):
        return reply
    text = s(reply)
    if len(text) > limit:
        text = text[:limit] + "...(%d chars)" % len(text)
    return text


def cli_line(args):
    """args as a line redis-cli reads back (its double-quoted escapes)."""
    out = []
    for a in args:
        if a and all(33 <= c < 127 and c not in b"\"'\\" for c in a):
            out.append(a.decode())
            continue
        q = ['"']
        for c in a:
            if c == 0x22:
                q.append('\\"')
            elif c == 0x5c:
                q.append("\\\\")
            elif c == 0x0a:
                q.append("\\n")
            elif c == 0x0d:
                q.append("\\r")
            elif c == 0x09:
                q.append("\\t")
            elif 32 <= c < 127:
                q.append(chr(c))
            else:
                q.append("\\x%02x" % c)
        q.append('"')
        out.append("".join(q))
    return " ".join(out)


# ---------------------------------------------------------- connections ---


class Closed(Exception):
    def __init__(self, server, got, why, all=None):
        Exception.__init__(self, "%s %s" % (server.name, why))
        self.server, self.got, self.why = server, got, why
        self.all = all if all is not None else [got]


class Server:
    def __init__(self, name, where, timeout, proto=2):
        self.name, self.where, self.timeout = name, where, timeout
        self.proto = proto  # 3: HELLO 3 first, every reply in RESP3
        self.sock = None
        self.connect()

    def connect(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if isinstance(self.where, str):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(self.timeout)
            s.connect(self.where)
        else:
            s = socket.create_connection(("127.0.0.1", self.where),
                                         timeout=self.timeout)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.proto == 3:
            self.hello(s)
        s.setblocking(False)
        self.sock = s
        self.buf = bytearray()
        self.pos = 0

    def hello(self, s):
        """HELLO 3 on s (still blocking), its reply read whole."""
        s.sendall(encode([b"HELLO", b"3"]))
        buf = bytearray()
        r = None
        while r is None:
            d = s.recv(1 << 16)
            if not d:
                raise OSError("%s closed at HELLO 3" % self.name)
            buf += d
            r = parse(buf, 0)
        if r[0][0] != "%" or r[1] != len(buf):
            raise OSError("%s answered HELLO 3 with %s" %
                          (self.name, show(r[0])))

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def exchange(jobs, timeout):
    """jobs: [(server, bytes, replies)]: writes each server its bytes
    while reading its replies (so that neither side's buffers can fill
    up), until each has sent as many replies as asked. Returns the
    replies, a list for each job. Raises Closed, once the others are
    done, if a server closed the connection, broke the protocol or sent
    nothing for timeout seconds."""
    out = [memoryview(d) for _, d, _ in jobs]
    got = [[] for _ in jobs]
    dead = {}  # job: why

    def fail(i, why):
        dead.setdefault(i, why)
        out[i] = out[i][:0]

    for i, (srv, _, _) in enumerate(jobs):
        if srv.sock is None:
            fail(i, "is not connected")
    while True:
        rl, wl, socks = [], [], {}
        for i, (srv, _, n) in enumerate(jobs):
            if i in dead:
                continue
            socks[srv.sock] = i
            if len(got[i]) < n:
                try:
                    while len(got[i]) < n:
                        r = parse(srv.buf, srv.pos)
                        if r is None:
                            break
                        got[i].append(r[0])
                        srv.pos = r[1]
                except ProtocolError as e:
                    fail(i, "broke the protocol: %s" % e)
                    continue
                if len(got[i]) < n:
                    rl.append(srv.sock)
            if len(out[i]):
                wl.append(srv.sock)
            if srv.pos and srv.pos == len(srv.buf):
                srv.buf = bytearray()
                srv.pos = 0
            elif srv.pos > 1 << 20:
                del srv.buf[:srv.pos]
                srv.pos = 0
        if not rl and not wl:
            break
        r, w, _ = select.select(rl, wl, [], timeout)
        if not r and not w:
            for s in rl + wl:
                fail(socks[s], "sent no reply for %g s" % timeout)
            break
        for s in w:
            i = socks[s]
            try:
                k = s.send(out[i][:1 << 18])
            except (BlockingIOError, InterruptedError):
                k = 0
            except OSError:  # it closed: its replies tell the rest
                k = len(out[i])
            out[i] = out[i][k:]
        for s in r:
            i = socks[s]
            try:
                d = s.recv(1 << 18)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as e:
                fail(i, "reset the connection (%s)" % e)
                continue
            if not d:
                fail(i, "closed the connection")
                continue
            jobs[i][0].buf += d
    if dead:
        i = min(dead)
        for j in dead:  # what is left of the stream there is not to be read
            jobs[j][0].close()
        raise Closed(jobs[i][0], got[i], dead[i], got)
    return got


# ----------------------------------------------------------- generators ---

KEYS = [b"a", b"b", b"c", b"d", b"key:1", b"key:2", b"user:{7}", b"n",
        b"s", b"h", b"l", b"z", b"x", b"\x00bin", b"sp ace", b"\xff\r\n",
        b""]
KEYSET = frozenset(KEYS)
# Each family's own keys: its commands take one of them 9 times in 10, any
# key else (other types: WRONGTYPE), so that each type keeps keys of its
# own that grow, and every key still meets every command.
LEXKEY = b"key:2"  # a zset of one score, mostly: where lex ranges are defined
HOME = {"string": [b"a", b"b", b"n", b"\xff\r\n"],
        "list": [b"l", b"c", b"sp ace"], "hash": [b"h", b"d"],
        "set": [b"s", b"key:1", b"\x00bin"], "zset": [b"z", b"key:2"],
        "stream": [b"x", b"user:{7}"]}
WORDS = [b"foo", b"bar", b"baz", b"v", b"hello", b"m1", b"m2", b"a", b"Z",
         b"key:1", b"x y"]
INT_EDGE = [b"9223372036854775807", b"-9223372036854775808",
            b"9223372036854775808", b"-9223372036854775809", b"0", b"-0",
            b"00", b"+1", b" 1", b"1 ", b"0x10", b"007", b"-1", b"1e3",
            b"4611686018427387904", b"18446744073709551615"]
FLOATS = [b"1.5", b"-0.25", b"3e2", b"inf", b"-inf", b"+inf", b"nan",
          b"1e308", b"-1e308", b"0.1", b".5", b"5.", b"1e-320", b"2.0",
          b"1E3", b"0x1p3", b" 1.5", b"1.5 ", b"3.14159265358979323846",
          b"-0.0", b"1e400", b"infinity", b"1.7976931348623157e308",
          b"123456789012345678", b"0.30000000000000004", b"1e-5"]
BINARY = [b"a\x00b", b"\r\n", b"\x00", b"x\r\ny", b"\xff\xfe\x80", b'"q"',
          b"\\", b" ", b"\n", b"'", b"*1\r\n$4\r\nPING\r\n"]
JUNK = [b"", b"x", b"-1", b"0", b"1.5", b"nan", b"9223372036854775808",
        b"NX", b"LIMIT", b"\x00", b"WITHSCORES", b"COUNT"]
PATTERNS = [b"*", b"a*", b"k*", b"key:*", b"?", b"*e*", b"[a-c]", b"[^a]*",
            b"[!a]*", b"\\*", b"*[", b"[", b"user:{7}", b"h\\", b"*\x00*",
            b"[a-]", b"[]a]", b"sp*", b"*:?", b"[z-a]", b"\\", b"**",
            b"*[0-9]", b"[\\]]*", b"\xff*", b"*\n", b"user:{[0-9]}",
            b"many:1*", b"many:?", b"*:*", b"many:[0-4]?"]
TYPES = [b"string", b"list", b"set", b"zset", b"hash", b"stream", b"nosuch",
         b"STRING"]
SCORE_RANGE = [b"-inf", b"+inf", b"inf", b"(1", b"1", b"(-inf", b"2.5",
               b"1e2", b"(+inf", b"(0", b"0", b"-2", b"(2.5", b"5", b"(-3",
               b"-5.5", b"(inf"]
BAD_SCORE_RANGE = [b"(x", b"x", b"nan", b"(", b"-inf)", b"", b"((1", b"1x"]
LEX_RANGE = [b"-", b"+", b"[m1", b"(m5", b"[", b"(", b"[a", b"[1", b"(1",
             b"[m10", b"[-", b"[\x00", b"(m", b"[z", b"(f", b"[m7"]
BAD_LEX_RANGE = [b"m1", b"", b"+x", b"-a", b"(+", b"[+"]
FUTURE_S = 4102444800  # 2100-01-01: far in the future
MAX_TTL_MS = 1 << 63   # no TTL above this


class Gen:
    """The seeded stream. Its choices come from rng alone, never from a
    reply, so the same seed gives the same stream (and a prefix can be
    made again)."""

    def __init__(self, seed, names, approx_trim, resp3=False):
        self.rng = random.Random(seed)
        self.resp3 = resp3  # the connections' protocol (HELLO's)
        self.pending = []   # commands due next (HELLO 3 after RESET)
        # batch sizes of their own: the commands do not depend on them
        self.sizes = random.Random("batches %d" % seed)
        self.nbatch = 0
        self.approx = approx_trim
        table = sorted((n, GEN[n]) for n in names if n in GEN)
        self.names = [n for n, _ in table]
        self.fns = [t[2] for _, t in table]
        self.fams = [t[3] for _, t in table]
        self.fam = "any"
        self.kinds = [t[1] for _, t in table]
        acc, cum = 0.0, []
        for _, t in table:
            acc += t[0]
            cum.append(acc)
        self.cum = cum
        self.used_s = set()  # relative expiries, distinct (see rel_s)
        self.ms = 1          # stream IDs: the last ms part given
        self.scan = [n for n in ("scan", "sscan", "hscan", "zscan")
                     if n in names]

    # -- pieces
    def key(self):
        home = HOME.get(self.fam)
        # (strings less often elsewhere: SET takes any key's place)
        if home and self.rng.random() < (0.97 if self.fam == "string"
                                         else 0.9):
            return self.rng.choice(home)
        return self.rng.choice(KEYS)

    def keys(self, lo=1, hi=4):
        return [self.key() for _ in range(self.rng.randint(lo, hi))]

    def opt(self, tok):
        r = self.rng.random()
        if r < 0.6:
            return tok
        if r < 0.85:
            return tok.lower()
        return bytes(c ^ 0x20 if 65 <= (c & ~0x20) <= 90 and
                     self.rng.random() < 0.5 else c for c in tok)

    def val(self):
        rng = self.rng
        r = rng.random()
        if r < 0.25:
            return b"%d" % rng.randint(-100, 1000)
        if r < 0.31:
            return rng.choice(INT_EDGE)
        if r < 0.41:
            return rng.choice(FLOATS)
        if r < 0.50:
            w = rng.choice(WORDS) + b"-"
            return (w * 100)[:rng.randint(65, 400)]
        if r < 0.55:
            return b""
        if r < 0.63:
            return rng.choice(BINARY)
        return rng.choice(WORDS)

    def member(self):
        """A member, field or element: mostly from a pool small enough
        that commands find what others added (the large ones add m0,
        m1, ... and 0, 1, ... too)."""
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            return b"m%d" % rng.randint(0, 9)
        if r < 0.8:
            return b"%d" % rng.randint(0, 15)
        return self.val()

    def num(self, lo=-10, hi=10, bad=0.05):
        """An integer argument, now and then not one."""
        rng = self.rng
        r = rng.random()
        if r < bad:
            return rng.choice(JUNK[:7] + INT_EDGE[:4] + [b"1.0", b" 2"])
        return b"%d" % rng.randint(lo, hi)

    def count(self):
        rng = self.rng
        r = rng.random()
        if r < 0.06:
            return rng.choice([b"x", b"1.5", b"-1", b"9223372036854775808",
                               b"", b"-9223372036854775808",
                               b"9223372036854775807"])
        if r < 0.11:
            return b"0"
        if r < 0.14:
            return b"%d" % rng.randint(20, 1000)
        return b"%d" % rng.randint(1, 5)

    def index(self):
        rng = self.rng
        r = rng.random()
        if r < 0.04:
            return rng.choice(INT_EDGE[:4] + [b"x", b"1.5", b""])
        if r < 0.1:
            return b"%d" % rng.randint(-1000, 1000)
        return b"%d" % rng.randint(-12, 12)

    def score(self):
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            return b"%d" % rng.randint(-10, 10)
        if r < 0.75:
            return rng.choice(FLOATS[:20])
        if r < 0.85:
            return b"0"
        if r < 0.98:
            return b"%d.%d" % (rng.randint(-99, 99), rng.randint(0, 99))
        return rng.choice([b"abc", b"", b"(1", b"nan", b"1e400", b"inf"])

    def srange(self):
        rng = self.rng
        if rng.random() < 0.06:
            return rng.choice(BAD_SCORE_RANGE)
        return rng.choice(SCORE_RANGE)

    def lexkey(self):
        return LEXKEY if self.rng.random() < 0.7 else self.key()

    def lrange(self):
        rng = self.rng
        if rng.random() < 0.06:
            return rng.choice(BAD_LEX_RANGE)
        return rng.choice(LEX_RANGE)

    def rel_s(self):
        """A relative expiry in seconds, 100..100000, distinct in the run
        (as ms, with rel_ms): two expiries of a key differ by a second or
        more, so GT and LT never compare two that the servers' clocks
        could order either way."""
        rng = self.rng
        for _ in range(20):
            s = rng.randint(100, 100000)
            if s not in self.used_s:
                break
        self.used_s.add(s)
        return s

    def exp_rel(self, unit_ms):
        s = self.rel_s()
        return b"%d" % (s * 1000 if unit_ms else s)

    def exp_abs(self, unit_ms, past_ok):
        rng = self.rng
        if past_ok and rng.random() < 0.3:
            s = rng.randint(1, 1600000000)  # before 2021: gone at once
        else:
            s = FUTURE_S + rng.randint(0, 10 ** 7)
        if unit_ms:
            return b"%d" % (s * 1000 + rng.randint(0, 999))
        return b"%d" % s

    def exp_bad(self):
        """Never a small positive number: with the rest of a command cut
        away it could become an expiry that passes during the run."""
        return self.rng.choice([b"0", b"-1", b"-100", b"abc", b"1.5", b"",
                                b"9223372036854775807",
                                b"-9223372036854775808",
                                b"9223372036854775808",
                                b"9223372036854776", b"-9223372036854776"])

    def recent(self):
        """An ID of the last ones given, most likely in a stream."""
        rng = self.rng
        return b"%d-%d" % (max(0, self.ms - rng.randint(0, 40)),
                           0 if rng.random() < 0.6 else rng.randint(1, 3))

    def sid(self, fresh=0.88):
        """A stream ID: mostly past the last one given, so XADD mostly
        succeeds; else an older, bad or special one."""
        rng = self.rng
        r = rng.random()
        if r < fresh:
            self.ms += rng.randint(0, 3)
            if rng.random() < 0.25:
                return b"%d-*" % self.ms
            return b"%d-%d" % (self.ms, rng.randint(0, 3))
        if r < fresh + 0.06:
            return self.recent()
        return rng.choice([b"0-0", b"0-1", b"abc", b"-1", b"1-x",
                           b"%d" % self.ms, b"*-1", b"", b"%d-" % self.ms,
                           b"18446744073709551615-18446744073709551615",
                           b"18446744073709551616-0",
                           b"1-18446744073709551616"])

    def sid_range(self):
        rng = self.rng
        r = rng.random()
        if r < 0.25:
            return rng.choice([b"-", b"+"])
        ms = max(0, self.ms - rng.randint(-2, 60))
        if r < 0.45:
            return b"%d" % ms
        if r < 0.85:
            return b"%d-%d" % (ms, rng.randint(0, 3))
        if r < 0.95:
            return b"(%d-%d" % (ms, rng.randint(0, 3))
        return rng.choice([b"x", b"(-", b"(+", b"(", b"1-x", b"",
                           b"18446744073709551615-18446744073709551615",
                           b"(18446744073709551615-18446744073709551615",
                           b"(0-0"])

    def trim(self):
        """MAXLEN|MINID [=|~] threshold [LIMIT n], mostly right."""
        rng = self.rng
        a = [self.opt(rng.choice([b"MAXLEN", b"MINID"]))]
        r = rng.random()
        if r < 0.3:
            a.append(b"=")
        elif r < 0.4 and self.approx:
            a.append(b"~")
        if a[0].upper() == b"MAXLEN":
            a.append(rng.choice([b"%d" % rng.randint(0, 20), b"-1", b"x",
                                 b"0"]) if rng.random() < 0.1 else
                     b"%d" % rng.randint(0, 20))
        else:
            a.append(self.sid_range() if rng.random() < 0.1 else
                     self.recent())
        if rng.random() < 0.08:  # an error without "~"
            a += [self.opt(b"LIMIT"), self.num(0, 200)]
        return a

    def many(self, fn, lo, hi):
        return [fn() for _ in range(self.rng.randint(lo, hi))]

    # -- the stream
    def command(self):
        """One command: (args, kind)."""
        rng = self.rng
        i = self.pick()
        name = self.names[i]
        self.fam = self.fams[i]
        args = self.fns[i](self)
        kind = self.kinds[i]
        if isinstance(args, tuple):
            args, kind = args
        r = rng.random()
        if r < 0.02 and args:  # wrong arity, or options cut short
            args = args[:rng.randrange(len(args))]
        elif r < 0.03:  # an argument too many
            args = args + [rng.choice(JUNK)]
        return [self.opt(name.upper().encode())] + args, kind

    def pick(self):
        x = self.rng.random() * self.cum[-1]
        lo, hi = 0, len(self.cum) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.cum[mid] <= x:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def scan_step(self):
        rng = self.rng
        which = rng.choice(self.scan)
        self.fam = {"sscan": "set", "hscan": "hash", "zscan": "zset"}.get(
            which, "any")
        opts = []
        if rng.random() < 0.5:
            opts += [b"MATCH", rng.choice(PATTERNS) if which == "scan" else
                     rng.choice([b"*", b"m*", b"1*", b"*1", b"?", b"[0-9]",
                                 b"m1?", b"*o*"])]
        if rng.random() < 0.7:
            opts += [b"COUNT", b"%d" % rng.randint(1, 20)]
        if which == "scan" and rng.random() < 0.4:
            opts += [b"TYPE", rng.choice(TYPES)]
        key = [] if which == "scan" else [self.key()]
        return [which.upper().encode()] + key + opts, "scan"

    def batches(self, n, batch_max):
        """Yields lists of (args, kind, batch number), n commands in all
        (the number keeps a replay's batches as they were); a command that
        needs a look at redis-server's keyspace right after it (CUT) ends
        its batch, and a scan step is a batch of its own."""
        rng = self.rng
        done = 0
        carry = None
        while done < n:
            size = min(self.sizes.randint(1, batch_max), n - done)
            batch = []
            if carry is not None:
                batch.append(carry)
                carry = None
            while len(batch) < size:
                if self.scan and rng.random() < 0.003:
                    c = self.scan_step()
                else:
                    c = self.command()
                if batch and (c[1] in FIRST or c[1] == "scan"):
                    carry = c
                    break
                batch.append(c)
                if c[1] in CUT or c[1] == "scan":
                    break
            done += len(batch)
            self.nbatch += 1
            yield [(a, k, self.nbatch) for a, k in batch]


GEN = {}   # name: (weight, kind, fn(gen) -> args after the name, family)
# Kinds of command that end their batch: a look at redis-server's
# keyspace right after them tells whether kv_server's reply is right.
CUT = {"spop", "srand", "hrand", "zrand", "randomkey"}
# Kinds that begin one: the lex range commands, whose replies redis
# leaves unspecified unless all the members have the same score (on a
# skiplist with mixed scores they depend on its random levels): redis's
# key is looked at first, and the command sent only where it is defined.
# "lex": the zset at args[1], "lex2": at args[2].
FIRST = {"lex", "lex2"}
FAMILY = ["any"]  # the family of the generators that follow


def gen(name, weight=1.0, kind="eq"):
    def deco(fn):
        GEN[name] = (weight, kind, fn, FAMILY[0])
        return fn
    return deco


# Commands kv_server may implement that no generator here makes, and
# why: compared elsewhere (tests/kv.sh), by special code here (the scan
# step), or not comparable with redis-server's replies at all.
BLOCKS = "blocks on an empty key: a wait, not a reply (not compared)"
SCAN_STEP = "cursors differ by design: compared by the scan step here"
EXEMPT = {
    "quit": "closes the connection: tests/kv.sh",
    "shutdown": "stops the server (not compared)",
    "info": "the server's own figures: uptime, memory, clients (not "
            "compared)",
    "monitor": "streams every command: no one reply (not compared)",
    "debug": "redis's internals (not compared)",
    "object": "redis's encodings and idle times (not compared)",
    "memory": "the allocator's figures (not compared)",
    "time": "the clock (not compared)",
    "lastsave": "the clock (not compared)",
    "save": "persistence: files, not replies (not compared)",
    "bgsave": "persistence: files, not replies (not compared)",
    "bgrewriteaof": "persistence: files, not replies (not compared)",
    "scan": SCAN_STEP, "sscan": SCAN_STEP, "hscan": SCAN_STEP,
    "zscan": SCAN_STEP,
    "blpop": BLOCKS, "brpop": BLOCKS, "brpoplpush": BLOCKS,
    "blmove": BLOCKS, "blmpop": BLOCKS, "bzpopmin": BLOCKS,
    "bzpopmax": BLOCKS, "bzmpop": BLOCKS,
    "subscribe": "pub/sub changes the connection's protocol",
    "psubscribe": "pub/sub changes the connection's protocol",
    "ssubscribe": "pub/sub changes the connection's protocol",
}

# ---- strings
FAMILY[0] = "string"


@gen("get", 3)
def _get(g):
    return [g.key()]


def set_opts(g, past_ok):
    """SET's and GETEX's expiry: one of EX PX EXAT PXAT (KEEPTTL,
    PERSIST added by the caller), now and then a bad one."""
    rng = g.rng
    r = rng.random()
    if r < 0.3:
        return [g.opt(b"EX"), g.exp_rel(False)]
    if r < 0.5:
        return [g.opt(b"PX"), g.exp_rel(True)]
    if r < 0.65:
        return [g.opt(b"EXAT"), g.exp_abs(False, past_ok)]
    if r < 0.8:
        return [g.opt(b"PXAT"), g.exp_abs(True, past_ok)]
    return [g.opt(rng.choice([b"EX", b"PX", b"EXAT", b"PXAT"])), g.exp_bad()]


@gen("set", 6)
def _set(g):
    rng = g.rng
    groups = []
    if rng.random() < 0.3:
        groups.append([g.opt(rng.choice([b"NX", b"XX"]))])
    if rng.random() < 0.2:
        groups.append([g.opt(b"GET")])
    r = rng.random()
    if r < 0.35:
        groups.append(set_opts(g, False))  # a past SET EXAT lingers
    elif r < 0.42:
        groups.append([g.opt(b"KEEPTTL")])
    if rng.random() < 0.05:  # two that cannot go together, or junk
        groups.append(rng.choice([[g.opt(b"NX")], [g.opt(b"XX")],
                                  [g.opt(b"KEEPTTL")], set_opts(g, False),
                                  [b"EX"], [b"BADOPT"]]))
    rng.shuffle(groups)
    return [g.key(), g.val()] + [a for grp in groups for a in grp]


@gen("setnx")
def _setnx(g):
    return [g.key(), g.val()]


@gen("setex")
def _setex(g):
    e = g.exp_rel(False) if g.rng.random() < 0.85 else g.exp_bad()
    return [g.key(), e, g.val()]


@gen("psetex")
def _psetex(g):
    e = g.exp_rel(True) if g.rng.random() < 0.85 else g.exp_bad()
    return [g.key(), e, g.val()]


@gen("getset")
def _getset(g):
    return [g.key(), g.val()]


@gen("getdel")
def _getdel(g):
    return [g.key()]


@gen("getex")
def _getex(g):
    rng = g.rng
    r = rng.random()
    if r < 0.3:
        return [g.key()]
    if r < 0.4:
        return [g.key(), g.opt(b"PERSIST")]
    a = [g.key()] + set_opts(g, True)
    if rng.random() < 0.05:
        a += rng.choice([[g.opt(b"PERSIST")], set_opts(g, False)])
    return a


@gen("mget")
def _mget(g):
    return g.keys(1, 5)


@gen("mset")
def _mset(g):
    a = []
    if g.rng.random() < 0.01:  # a keyspace to SCAN past one call
        for i in range(g.rng.randint(100, 400)):
            a += [b"many:%d" % i, b"%d" % i]
        return a
    for _ in range(g.rng.randint(1, 4)):
        a += [g.key(), g.val()]
    return a


@gen("msetnx", 0.5)
def _msetnx(g):
    return _mset(g)


@gen("append")
def _append(g):
    return [g.key(), g.val()]


@gen("strlen")
def _strlen(g):
    return [g.key()]


@gen("incr", 1.5)
def _incr(g):
    return [g.key()]


@gen("decr")
def _decr(g):
    return [g.key()]


@gen("incrby")
def _incrby(g):
    rng = g.rng
    return [g.key(), rng.choice(INT_EDGE) if rng.random() < 0.15 else
            g.num(-1000, 1000)]


@gen("decrby")
def _decrby(g):
    return _incrby(g)


@gen("incrbyfloat", 1.5)
def _incrbyfloat(g):
    rng = g.rng
    r = rng.random()
    inc = rng.choice(FLOATS) if r < 0.4 else rng.choice(INT_EDGE) \
        if r < 0.5 else b"%d.%d" % (rng.randint(-50, 50), rng.randint(0, 999))
    return [g.key(), inc]


@gen("getrange")
def _getrange(g):
    return [g.key(), g.index(), g.index()]


@gen("substr", 0.3)
def _substr(g):
    return _getrange(g)


@gen("setrange")
def _setrange(g):
    rng = g.rng
    r = rng.random()
    if r < 0.85:
        off = b"%d" % rng.randint(0, 300)
    else:  # beyond 512 MB, or bad: errors (or nothing, with "")
        off = rng.choice([b"-1", b"536870912", b"536870911", b"x",
                          b"9223372036854775807", b"4294967296"])
        if off == b"536870911":
            return [g.key(), off, rng.choice([b"ab", b""])]
    return [g.key(), off, g.val()]


def bitoff(g):
    """A bit offset: small (no string of 512 MB), now and then bad."""
    rng = g.rng
    if rng.random() < 0.05:
        return rng.choice([b"-1", b"4294967296", b"x", b"1.5", b""])
    return b"%d" % rng.randint(0, 4000 if rng.random() < 0.2 else 200)


@gen("setbit", 0.5)
def _setbit(g):
    rng = g.rng
    return [g.key(), bitoff(g), rng.choice([b"0", b"1"]) if
            rng.random() < 0.95 else rng.choice([b"2", b"-1", b"x", b""])]


@gen("getbit", 0.5)
def _getbit(g):
    return [g.key(), bitoff(g)]


def bitrange(g):
    rng = g.rng
    a = []
    if rng.random() < 0.7:
        a = [g.index(), g.index()]
        if rng.random() < 0.4:
            a.append(g.opt(rng.choice([b"BYTE", b"BIT"])) if
                     rng.random() < 0.95 else b"WORD")
    return a


@gen("bitcount", 0.5)
def _bitcount(g):
    return [g.key()] + bitrange(g)


@gen("bitpos", 0.5)
def _bitpos(g):
    rng = g.rng
    a = [g.key(), rng.choice([b"0", b"1"]) if rng.random() < 0.95 else
         rng.choice([b"2", b"x"])]
    r = bitrange(g)
    if r and rng.random() < 0.3:
        r = r[:1]
    return a + r


@gen("bitop", 0.3)
def _bitop(g):
    rng = g.rng
    op = g.opt(rng.choice([b"AND", b"OR", b"XOR", b"NOT"])) \
        if rng.random() < 0.95 else b"NAND"
    n = 1 if op.upper() == b"NOT" and rng.random() < 0.8 else \
        rng.randint(1, 3)
    return [op, g.key()] + [g.key() for _ in range(n)]


def bitfield_enc(g):
    rng = g.rng
    if rng.random() < 0.05:
        return rng.choice([b"i0", b"u64", b"i65", b"x8", b"u", b"i"])
    return (b"i%d" % rng.randint(1, 64)) if rng.random() < 0.5 else \
        (b"u%d" % rng.randint(1, 63))


def bitfield_off(g):
    rng = g.rng
    if rng.random() < 0.3:
        return b"#%d" % rng.randint(0, 20)
    return bitoff(g)


@gen("bitfield", 0.3)
def _bitfield(g):
    rng = g.rng
    a = [g.key()]
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.35:
            a += [g.opt(b"GET"), bitfield_enc(g), bitfield_off(g)]
        elif r < 0.65:
            a += [g.opt(b"SET"), bitfield_enc(g), bitfield_off(g),
                  g.num(-300, 300)]
        elif r < 0.9:
            a += [g.opt(b"INCRBY"), bitfield_enc(g), bitfield_off(g),
                  g.num(-300, 300)]
        else:
            a += [g.opt(b"OVERFLOW"), g.opt(rng.choice(
                [b"WRAP", b"SAT", b"FAIL"])) if rng.random() < 0.9 else
                b"BAD"]
    return a


@gen("bitfield_ro", 0.2)
def _bitfield_ro(g):
    rng = g.rng
    a = [g.key()]
    for _ in range(rng.randint(1, 3)):
        a += [g.opt(b"GET"), bitfield_enc(g), bitfield_off(g)]
    if rng.random() < 0.05:
        a += [b"SET", b"u8", b"0", b"1"]
    return a


# ---- keys
FAMILY[0] = "any"


@gen("move", 0.2)
def _move(g):
    return [g.key(), g.rng.choice([b"0", b"1", b"-1", b"x", b"16"])]


@gen("del", 1.5)
def _del(g):
    rng = g.rng
    if rng.random() < 0.03:  # some of MSET's many
        lo = rng.randint(0, 300)
        return [b"many:%d" % i for i in range(lo, lo + rng.randint(1, 150))]
    return g.keys(1, 4)


@gen("unlink", 0.5)
def _unlink(g):
    return g.keys(1, 4)


@gen("exists")
def _exists(g):
    return g.keys(1, 5)


@gen("touch", 0.3)
def _touch(g):
    return g.keys(1, 4)


@gen("type")
def _type(g):
    return [g.key()]


def expire_args(g, unit_ms, absolute):
    rng = g.rng
    r = rng.random()
    if r < 0.85:
        t = g.exp_abs(unit_ms, True) if absolute else g.exp_rel(unit_ms)
    elif r < 0.93:  # at once: in the past
        t = rng.choice([b"0", b"-1", b"-100"])
    else:
        t = g.exp_bad()
    a = [g.key(), t]
    if rng.random() < 0.4:
        a.append(g.opt(rng.choice([b"NX", b"XX", b"GT", b"LT"])))
        if rng.random() < 0.1:
            a.append(g.opt(rng.choice([b"NX", b"XX", b"GT", b"LT", b"BAD"])))
    return a


@gen("expire", 1.5)
def _expire(g):
    return expire_args(g, False, False)


@gen("pexpire")
def _pexpire(g):
    return expire_args(g, True, False)


@gen("expireat")
def _expireat(g):
    return expire_args(g, False, True)


@gen("pexpireat")
def _pexpireat(g):
    return expire_args(g, True, True)


@gen("ttl", 1.5, "ttl")
def _ttl(g):
    return [g.key()]


@gen("pttl", 1, "pttl")
def _pttl(g):
    return [g.key()]


@gen("expiretime", 0.5, "time")
def _expiretime(g):
    return [g.key()]


@gen("pexpiretime", 0.5, "ptime")
def _pexpiretime(g):
    return [g.key()]


@gen("persist")
def _persist(g):
    return [g.key()]


@gen("rename")
def _rename(g):
    return [g.key(), g.key()]


@gen("renamenx", 0.7)
def _renamenx(g):
    return [g.key(), g.key()]


@gen("copy", 0.5)
def _copy(g):
    rng = g.rng
    a = [g.key(), g.key()]
    if rng.random() < 0.1:
        a += [g.opt(b"DB"), rng.choice([b"0", b"1", b"x", b"-1"])]
    if rng.random() < 0.4:
        a.append(g.opt(b"REPLACE"))
    return a


@gen("keys", 0.7, "set")
def _keys(g):
    return [g.rng.choice(PATTERNS)]


@gen("dbsize", 0.5)
def _dbsize(g):
    return []


@gen("randomkey", 0.3, "randomkey")
def _randomkey(g):
    return []


@gen("flushall", 0.02)
def _flushall(g):
    r = g.rng.random()
    return [] if r < 0.5 else [g.opt(b"ASYNC")] if r < 0.75 else \
        [g.opt(b"SYNC")] if r < 0.95 else [b"BAD"]


@gen("flushdb", 0.01)
def _flushdb(g):
    return _flushall(g)


# ---- lists
FAMILY[0] = "list"


def elements(g):
    """What a push pushes: a few, or now and then past 128 elements."""
    rng = g.rng
    if rng.random() < 0.03:
        return [b"%d" % i for i in range(rng.randint(129, 300))]
    return g.many(g.member, 1, 5)


@gen("lpush", 2)
def _lpush(g):
    return [g.key()] + elements(g)


@gen("rpush", 2)
def _rpush(g):
    return [g.key()] + elements(g)


@gen("lpushx", 0.5)
def _lpushx(g):
    return [g.key()] + g.many(g.member, 1, 3)


@gen("rpushx", 0.5)
def _rpushx(g):
    return [g.key()] + g.many(g.member, 1, 3)


@gen("lpop", 0.7)
def _lpop(g):
    return [g.key()] + ([g.count()] if g.rng.random() < 0.5 else [])


@gen("rpop", 0.7)
def _rpop(g):
    return _lpop(g)


@gen("llen")
def _llen(g):
    return [g.key()]


@gen("lrange", 1.5)
def _lrange(g):
    return [g.key(), g.index(), g.index()]


@gen("lindex")
def _lindex(g):
    return [g.key(), g.index()]


@gen("lset")
def _lset(g):
    return [g.key(), g.index(), g.member()]


@gen("ltrim", 0.5)
def _ltrim(g):
    return [g.key(), g.index(), g.index()]


@gen("linsert")
def _linsert(g):
    rng = g.rng
    where = g.opt(rng.choice([b"BEFORE", b"AFTER"])) \
        if rng.random() < 0.95 else b"MIDDLE"
    return [g.key(), where, g.member(), g.member()]


@gen("lrem")
def _lrem(g):
    return [g.key(), g.num(-3, 3), g.member()]


@gen("lpos")
def _lpos(g):
    rng = g.rng
    a = [g.key(), g.member()]
    opts = []
    if rng.random() < 0.4:
        opts.append([g.opt(b"RANK"), rng.choice(
            [b"1", b"2", b"-1", b"-2", b"0", b"3", b"x",
             b"-9223372036854775808", b"9223372036854775807"])])
    if rng.random() < 0.4:
        opts.append([g.opt(b"COUNT"), rng.choice(
            [b"0", b"1", b"2", b"5", b"-1", b"x"])])
    if rng.random() < 0.3:
        opts.append([g.opt(b"MAXLEN"), rng.choice(
            [b"0", b"1", b"3", b"10", b"-1", b"x"])])
    if rng.random() < 0.03:
        opts.append([b"BAD"])
    rng.shuffle(opts)
    return a + [x for o in opts for x in o]


@gen("rpoplpush", 0.5)
def _rpoplpush(g):
    return [g.key(), g.key()]


@gen("lmove", 0.5)
def _lmove(g):
    rng = g.rng
    side = [b"LEFT", b"RIGHT"] + ([b"UP"] if rng.random() < 0.05 else [])
    return [g.key(), g.key(), g.opt(rng.choice(side)),
            g.opt(rng.choice(side))]


@gen("lmpop", 0.3)
def _lmpop(g):
    rng = g.rng
    ks = g.keys(1, 3)
    n = b"%d" % len(ks) if rng.random() < 0.9 else rng.choice(
        [b"0", b"-1", b"x", b"9"])
    a = [n] + ks + [g.opt(rng.choice([b"LEFT", b"RIGHT"]))
                    if rng.random() < 0.95 else b"UP"]
    if rng.random() < 0.5:
        a += [g.opt(b"COUNT"), g.count()]
    return a


# ---- hashes
FAMILY[0] = "hash"


def pairs(g, field_fn, value_fn):
    rng = g.rng
    a = []
    if rng.random() < 0.03:  # past 128 fields
        for i in range(rng.randint(129, 200)):
            a += [b"f%d" % i, value_fn()]
        return a
    for _ in range(rng.randint(1, 4)):
        a += [field_fn(), value_fn()]
    return a


def field(g):
    rng = g.rng
    r = rng.random()
    if r < 0.6:
        return b"f%d" % rng.randint(0, 12)
    return g.member()


@gen("hset", 3)
def _hset(g):
    return [g.key()] + pairs(g, lambda: field(g), g.val)


@gen("hsetnx")
def _hsetnx(g):
    return [g.key(), field(g), g.val()]


@gen("hmset")
def _hmset(g):
    return [g.key()] + pairs(g, lambda: field(g), g.val)


@gen("hget", 1.5)
def _hget(g):
    return [g.key(), field(g)]


@gen("hmget")
def _hmget(g):
    return [g.key()] + g.many(lambda: field(g), 1, 4)


@gen("hdel")
def _hdel(g):
    return [g.key()] + g.many(lambda: field(g), 1, 3)


@gen("hlen")
def _hlen(g):
    return [g.key()]


@gen("hexists")
def _hexists(g):
    return [g.key(), field(g)]


@gen("hkeys", 0.7, "set")
def _hkeys(g):
    return [g.key()]


@gen("hvals", 0.7, "set")
def _hvals(g):
    return [g.key()]


@gen("hgetall", 1, "pairs")
def _hgetall(g):
    return [g.key()]


@gen("hincrby")
def _hincrby(g):
    rng = g.rng
    return [g.key(), field(g), rng.choice(INT_EDGE) if rng.random() < 0.15
            else g.num(-100, 100)]


@gen("hincrbyfloat")
def _hincrbyfloat(g):
    rng = g.rng
    inc = rng.choice(FLOATS) if rng.random() < 0.4 else \
        b"%d.%d" % (rng.randint(-50, 50), rng.randint(0, 999))
    return [g.key(), field(g), inc]


@gen("hstrlen")
def _hstrlen(g):
    return [g.key(), field(g)]


@gen("hrandfield", 0.5, "hrand")
def _hrandfield(g):
    rng = g.rng
    r = rng.random()
    if r < 0.3:
        return [g.key()]
    a = [g.key(), rng.choice([b"0", b"1", b"3", b"-3", b"-1", b"50",
                              b"200", b"-200", b"x"])]
    if rng.random() < 0.4:
        a.append(g.opt(b"WITHVALUES"))
    return a


# ---- sets
FAMILY[0] = "set"


def set_members(g):
    rng = g.rng
    r = rng.random()
    if r < 0.02:  # an intset past 512
        return [b"%d" % i for i in range(rng.randint(513, 600))]
    if r < 0.04:  # many strings
        return [b"m%d" % i for i in range(rng.randint(100, 200))]
    return g.many(g.member, 1, 5)


@gen("sadd", 3)
def _sadd(g):
    return [g.key()] + set_members(g)


@gen("srem")
def _srem(g):
    return [g.key()] + g.many(g.member, 1, 4)


@gen("smembers", 1, "set")
def _smembers(g):
    return [g.key()]


@gen("sismember")
def _sismember(g):
    return [g.key(), g.member()]


@gen("smismember")
def _smismember(g):
    return [g.key()] + g.many(g.member, 1, 4)


@gen("scard")
def _scard(g):
    return [g.key()]


@gen("spop", 0.7, "spop")
def _spop(g):
    return [g.key()] + ([g.count()] if g.rng.random() < 0.5 else [])


@gen("srandmember", 1, "srand")
def _srandmember(g):
    rng = g.rng
    if rng.random() < 0.4:
        return [g.key()]
    # (a count of -9223372036854775807 has redis-server 7.0 make that
    # many elements: never)
    return [g.key(), rng.choice([g.count(), b"-%d" % rng.randint(1, 30),
                                 b"-1000", b"-9223372036854775808"])]


@gen("sinter", 1, "set")
def _sinter(g):
    return g.keys(1, 3)


@gen("sunion", 1, "set")
def _sunion(g):
    return g.keys(1, 3)


@gen("sdiff", 1, "set")
def _sdiff(g):
    return g.keys(1, 3)


@gen("sinterstore", 0.5)
def _sinterstore(g):
    return [g.key()] + g.keys(1, 3)


@gen("sunionstore", 0.5)
def _sunionstore(g):
    return [g.key()] + g.keys(1, 3)


@gen("sdiffstore", 0.5)
def _sdiffstore(g):
    return [g.key()] + g.keys(1, 3)


def numkeys(g, ks):
    rng = g.rng
    r = rng.random()
    if r < 0.9:
        return b"%d" % len(ks)
    return rng.choice([b"0", b"-1", b"x", b"%d" % (len(ks) + 1),
                       b"%d" % max(1, len(ks) - 1), b"9223372036854775807"])


@gen("sintercard")
def _sintercard(g):
    rng = g.rng
    ks = g.keys(1, 3)
    a = [numkeys(g, ks)] + ks
    if rng.random() < 0.4:
        a += [g.opt(b"LIMIT"), rng.choice([b"0", b"1", b"2", b"5", b"-1",
                                           b"x"])]
    return a


@gen("smove")
def _smove(g):
    return [g.key(), g.key(), g.member()]


# ---- sorted sets
FAMILY[0] = "zset"


def zpairs(g):
    rng = g.rng
    a = []
    r = rng.random()
    if r < 0.03:  # past 128 members
        same = rng.random() < 0.3
        for i in range(rng.randint(129, 200)):
            a += [b"0" if same else b"%d" % rng.randint(-50, 50), b"m%d" % i]
        return a
    for _ in range(rng.randint(1, 4)):
        a += [g.score(), g.member()]
    return a


@gen("zadd", 4)
def _zadd(g):
    rng = g.rng
    opts = []
    if rng.random() < 0.2:
        opts.append(g.opt(rng.choice([b"NX", b"XX"])))
    if rng.random() < 0.2:
        opts.append(g.opt(rng.choice([b"GT", b"LT"])))
    if rng.random() < 0.2:
        opts.append(g.opt(b"CH"))
    incr = rng.random() < 0.15
    if incr:
        opts.append(g.opt(b"INCR"))
    if rng.random() < 0.03:
        opts.append(g.opt(rng.choice([b"NX", b"XX", b"GT", b"LT", b"CH"])))
    rng.shuffle(opts)
    ps = [g.score(), g.member()] if incr and rng.random() < 0.8 else zpairs(g)
    if rng.random() < 0.02:
        ps = ps[:-1]  # a score without its member
    key = g.key()
    if key == LEXKEY and rng.random() < 0.95:  # one score: lex ranges
        ps = [b"0" if i % 2 == 0 else x for i, x in enumerate(ps)]
    return [key] + opts + ps


@gen("zrem")
def _zrem(g):
    return [g.key()] + g.many(g.member, 1, 4)


@gen("zscore")
def _zscore(g):
    return [g.key(), g.member()]


@gen("zmscore")
def _zmscore(g):
    return [g.key()] + g.many(g.member, 1, 4)


@gen("zincrby", 1.5)
def _zincrby(g):
    key = g.key()
    if key == LEXKEY and g.rng.random() < 0.95:
        return [key, g.rng.choice([b"0", b"-0", b"0.0"]), g.member()]
    return [key, g.score(), g.member()]


@gen("zcard")
def _zcard(g):
    return [g.key()]


@gen("zcount")
def _zcount(g):
    return [g.key(), g.srange(), g.srange()]


@gen("zlexcount", 1, "lex")
def _zlexcount(g):
    return [g.lexkey(), g.lrange(), g.lrange()]


@gen("zrank")
def _zrank(g):
    return [g.key(), g.member()]


@gen("zrevrank")
def _zrevrank(g):
    return [g.key(), g.member()]


def limit(g):
    rng = g.rng
    return [g.opt(b"LIMIT"), rng.choice([b"0", b"1", b"2", b"-1", b"5",
                                         b"x"]),
            rng.choice([b"0", b"1", b"3", b"-1", b"-5", b"10", b"x"])]


@gen("zrange", 3)
def _zrange(g):
    rng = g.rng
    by = rng.random()
    if by < 0.5:
        a, b, opt = g.index(), g.index(), []
    elif by < 0.75:
        a, b = g.srange(), g.srange()
        opt = [g.opt(b"BYSCORE")]
    else:
        a, b = g.lrange(), g.lrange()
        opt = [g.opt(b"BYLEX")]
    if rng.random() < 0.3:
        opt.append(g.opt(b"REV"))
    if rng.random() < (0.4 if by >= 0.5 else 0.05):
        opt += limit(g)
    if rng.random() < (0.4 if by < 0.75 else 0.05):
        opt.append(g.opt(b"WITHSCORES"))
    if rng.random() < 0.03:
        opt.append(g.opt(rng.choice([b"BYSCORE", b"BYLEX", b"BAD"])))
    lex = any(x.upper() == b"BYLEX" for x in opt)
    return [g.lexkey() if lex else g.key(), a, b] + opt, \
        "lex" if lex else "eq"


@gen("zrangestore", 0.5)
def _zrangestore(g):
    a, kind = _zrange(g)
    a = [x for x in a if x.upper() != b"WITHSCORES"]
    return [g.key()] + a, "lex2" if kind == "lex" else "eq"


@gen("zrangebyscore")
def _zrangebyscore(g):
    rng = g.rng
    a = [g.key(), g.srange(), g.srange()]
    opts = []
    if rng.random() < 0.4:
        opts.append([g.opt(b"WITHSCORES")])
    if rng.random() < 0.4:
        opts.append(limit(g))
    rng.shuffle(opts)
    return a + [x for o in opts for x in o]


@gen("zrevrangebyscore")
def _zrevrangebyscore(g):
    return _zrangebyscore(g)


@gen("zrangebylex", 1, "lex")
def _zrangebylex(g):
    rng = g.rng
    a = [g.lexkey(), g.lrange(), g.lrange()]
    if rng.random() < 0.4:
        a += limit(g)
    return a


@gen("zrevrangebylex", 0.5, "lex")
def _zrevrangebylex(g):
    return _zrangebylex(g)


@gen("zrevrange")
def _zrevrange(g):
    a = [g.key(), g.index(), g.index()]
    if g.rng.random() < 0.4:
        a.append(g.opt(b"WITHSCORES"))
    return a


@gen("zpopmin", 0.5)
def _zpopmin(g):
    return [g.key()] + ([g.count()] if g.rng.random() < 0.5 else [])


@gen("zpopmax", 0.5)
def _zpopmax(g):
    return _zpopmin(g)


@gen("zremrangebyrank", 0.3)
def _zremrangebyrank(g):
    return [g.key(), g.index(), g.index()]


@gen("zremrangebyscore", 0.3)
def _zremrangebyscore(g):
    return [g.key(), g.srange(), g.srange()]


@gen("zremrangebylex", 0.3, "lex")
def _zremrangebylex(g):
    return [g.lexkey(), g.lrange(), g.lrange()]


@gen("zrandmember", 0.5, "zrand")
def _zrandmember(g):
    rng = g.rng
    if rng.random() < 0.3:
        return [g.key()]
    a = [g.key(), rng.choice([b"0", b"1", b"3", b"-3", b"-1", b"50",
                              b"200", b"-200", b"x"])]
    if rng.random() < 0.4:
        a.append(g.opt(b"WITHSCORES"))
    return a


def zsetop(g, store, withscores):
    rng = g.rng
    ks = g.keys(1, 3)
    a = ([g.key()] if store else []) + [numkeys(g, ks)] + ks
    if rng.random() < 0.3:
        a.append(g.opt(b"WEIGHTS"))
        a += [rng.choice([b"1", b"2", b"-1", b"0.5", b"inf", b"x", b"0"])
              for _ in range(len(ks) if rng.random() < 0.9 else 1)]
    if rng.random() < 0.3:
        a += [g.opt(b"AGGREGATE"), g.opt(rng.choice(
            [b"SUM", b"MIN", b"MAX", b"AVG"]))]
    if withscores and rng.random() < 0.4:
        a.append(g.opt(b"WITHSCORES"))
    return a


@gen("zunionstore", 0.5)
def _zunionstore(g):
    return zsetop(g, True, False)


@gen("zinterstore", 0.5)
def _zinterstore(g):
    return zsetop(g, True, False)


@gen("zdiffstore", 0.5)
def _zdiffstore(g):
    ks = g.keys(1, 3)
    return [g.key(), numkeys(g, ks)] + ks


@gen("zunion", 0.5)
def _zunion(g):
    return zsetop(g, False, True)


@gen("zinter", 0.5)
def _zinter(g):
    return zsetop(g, False, True)


@gen("zdiff", 0.5)
def _zdiff(g):
    ks = g.keys(1, 3)
    a = [numkeys(g, ks)] + ks
    if g.rng.random() < 0.4:
        a.append(g.opt(b"WITHSCORES"))
    return a


@gen("zintercard", 0.5)
def _zintercard(g):
    return _sintercard(g)


@gen("zmpop", 0.3)
def _zmpop(g):
    rng = g.rng
    ks = g.keys(1, 3)
    a = [numkeys(g, ks)] + ks + [g.opt(rng.choice([b"MIN", b"MAX"]))
                                 if rng.random() < 0.95 else b"MID"]
    if rng.random() < 0.5:
        a += [g.opt(b"COUNT"), g.count()]
    return a


# ---- streams
FAMILY[0] = "stream"


@gen("xadd", 3)
def _xadd(g):
    rng = g.rng
    a = [g.key()]
    if rng.random() < 0.1:
        a.append(g.opt(b"NOMKSTREAM"))
    if rng.random() < 0.2:
        a += g.trim()
    a.append(g.sid())
    n = 1 if rng.random() < 0.6 else rng.randint(2, 4)
    if rng.random() < 0.01:
        n = rng.randint(100, 130)
    for _ in range(n):
        a += [field(g), g.val()]
    return a


@gen("xlen")
def _xlen(g):
    return [g.key()]


@gen("xrange", 1.5)
def _xrange(g):
    a = [g.key(), g.sid_range(), g.sid_range()]
    if g.rng.random() < 0.3:
        a += [g.opt(b"COUNT"), g.rng.choice([b"0", b"1", b"2", b"5",
                                             b"-1", b"x"])]
    return a


@gen("xrevrange")
def _xrevrange(g):
    return _xrange(g)


@gen("xdel")
def _xdel(g):
    rng = g.rng
    return [g.key()] + [g.sid_range() if rng.random() < 0.1 else
                        g.recent() for _ in range(rng.randint(1, 3))]


@gen("xtrim")
def _xtrim(g):
    return [g.key()] + g.trim()


@gen("xsetid", 0.3)
def _xsetid(g):
    rng = g.rng
    r = rng.random()
    if r < 0.6:
        sid = b"%d-%d" % (g.ms + rng.randint(0, 10), rng.randint(0, 3))
    elif r < 0.8:
        sid = g.recent()
    else:
        sid = g.sid_range()
    a = [g.key(), sid]
    opts = []
    if rng.random() < 0.3:
        opts.append([g.opt(b"ENTRIESADDED"), rng.choice(
            [b"0", b"5", b"100", b"1000000", b"-1", b"x"])])
    if rng.random() < 0.3:
        opts.append([g.opt(b"MAXDELETEDID"), rng.choice(
            [b"0-0", b"1-1", b"%d-0" % rng.randint(0, g.ms + 20), b"x"])])
    if rng.random() < 0.03:
        opts.append([b"BAD"])
    rng.shuffle(opts)
    return a + [x for o in opts for x in o]


@gen("xread", 0.5)
def _xread(g):
    rng = g.rng
    a = []
    if rng.random() < 0.4:
        a += [g.opt(b"COUNT"), rng.choice([b"1", b"2", b"0", b"-1", b"x"])]
    ks = g.keys(1, 2)
    ids = [g.sid_range() if rng.random() < 0.3 else g.recent() for _ in ks]
    if rng.random() < 0.05:
        ids = ids[:-1]
    return a + [g.opt(b"STREAMS")] + ks + ids


# ---- connection
FAMILY[0] = "any"


@gen("ping", 0.5)
def _ping(g):
    r = g.rng.random()
    return [] if r < 0.5 else [g.val()] if r < 0.95 else [b"a", b"b"]


@gen("echo", 0.5)
def _echo(g):
    return [g.val()] if g.rng.random() < 0.95 else [b"a", b"b"]


@gen("select", 0.2)
def _select(g):
    return [g.rng.choice([b"0", b"0", b"0", b"1", b"-1", b"x", b"15",
                          b"9223372036854775808", b"2147483648"])]


# ---- the connection's own: HELLO, RESET, CLIENT, CONFIG, COMMAND
#
# Their replies hold what differs by server, masked here (MASKED) and
# only there: HELLO's server (each its own name), version (any 7.0) and
# id; CLIENT ID and CLIENT INFO's, LIST's id, addr, laddr, fd, age and
# idle, U in flags (the test's redis-server is on a unix socket, its
# kv_server on TCP) and the fields redis has that kv_server does not
# measure (qbuf,
# qbuf-free, argv-mem, multi-mem, rbs, rbp, obl, oll, omem, tot-mem);
# COMMAND COUNT (redis has more commands); COMMAND INFO, DOCS and LIST
# compared for what kv_server has (redis's other commands and
# subcommands left out), COMMAND INFO without its key specifications and
# tips, COMMAND DOCS as its summary, version, group and the hint
# redis-cli makes of its arguments. CONFIG SET is of maxclients (100 to
# 10000: below the descriptors either has) and timeout (0, or an hour
# and more: no client of the test is closed), put back at the end.

# kv_server's subcommands, and some of redis's that it has not
SUBS = [b"client|id", b"client|info", b"client|list", b"client|setname",
        b"client|getname", b"config|get", b"config|set", b"command|info",
        b"command|docs", b"command|count", b"client|kill", b"config|rewrite",
        b"command|getkeysandflags"]
# (not appendonly, appendfsync, dir: each server's as it was started)
CONFIGS = [b"maxclients", b"timeout", b"MaxClients", b"maxmemory",
           b"maxmemory-policy", b"databases", b"save", b"proto-max-bulk-len",
           b"nosuch"]


@gen("hello", 0.1, "hello")
def _hello(g):
    rng = g.rng
    proto = b"3" if g.resp3 else b"2"
    r = rng.random()
    if r < 0.15:
        return []
    if r < 0.3:
        return [rng.choice([b"4", b"1", b"x", b"-1", b"", b"03",
                            b"9223372036854775808"])]
    a = [proto]
    if rng.random() < 0.3:
        a += [g.opt(b"AUTH"), rng.choice([b"default", b"default",
                                          b"Default", b"nobody"]),
              rng.choice([b"", b"pw", b"x" * 40])]
    if rng.random() < 0.3:
        a += [g.opt(b"SETNAME"), rng.choice([b"cli", b"", b"a b", b"x\n",
                                             b"name-2"])]
    if rng.random() < 0.1:
        a.append(rng.choice([b"BADOPT", b"AUTH", b"SETNAME"]))
    return a


@gen("reset", 0.05)
def _reset(g):
    return []


@gen("client", 0.4)
def _client(g):
    rng = g.rng
    r = rng.random()
    if r < 0.12:
        return [g.opt(b"ID")], "client"
    if r < 0.24:
        return [g.opt(b"INFO")], "client"
    if r < 0.4:
        a = [g.opt(b"LIST")]
        if rng.random() < 0.3:
            a += [g.opt(b"TYPE"), rng.choice([b"normal", b"NORMAL",
                                              b"pubsub", b"master",
                                              b"replica", b"bad"])]
        elif rng.random() < 0.2:
            a += [g.opt(b"ID"), rng.choice([b"999999999", b"abc", b"-1"])]
        elif rng.random() < 0.1:
            a.append(b"x")
        return a, "client"
    if r < 0.6:
        return [g.opt(b"SETNAME"), rng.choice(
            [b"conn", b"", b"a b", b"x\r\ny", b"name:1", b"\xff",
             b"~!@#$%^&*()"])]
    if r < 0.85:
        return [g.opt(b"GETNAME")]
    # wrong: an argument too many, or no such subcommand (what the
    # stream cuts short may be right again: masked as such)
    return [rng.choice([b"nosuch", b"ID", b"GETNAME", b"SETNAME", b"LIST",
                        b""])] + g.many(g.val, 1, 2), "client"


@gen("config", 0.3)
def _config(g):
    rng = g.rng
    r = rng.random()
    if r < 0.4:
        return [g.opt(b"GET")] + [rng.choice(CONFIGS)
                                  for _ in range(rng.randint(1, 3))], "config"
    if r < 0.9:
        a = [g.opt(b"SET")]
        for _ in range(rng.randint(1, 2)):
            if rng.random() < 0.5:
                a += [g.opt(b"maxclients"), rng.choice(
                    [b"%d" % rng.randint(100, 10000), b"10000", b"0",
                     b"-1", b"x", b"4294967296", b"+5", b"05", b""])]
            elif rng.random() < 0.8:
                a += [g.opt(b"timeout"), rng.choice(
                    [b"0", b"0", b"%d" % rng.randint(3600, 100000), b"-1",
                     b"2147483648", b"1.5", b"07"])]
            else:  # (redis can set save: not here)
                a += [rng.choice([b"nosuch", b"databases"]),
                      rng.choice([b"1", b"", b"16"])]
        return a, "config"
    # no such subcommand (HELP: each server's own text, not compared)
    return [rng.choice([b"GETX", b"nosuch", b"RESETX"])] + \
        g.many(g.val, 0, 1), "config"


@gen("command", 0.3)
def _command(g):
    rng = g.rng
    r = rng.random()

    def name():
        q = rng.random()
        if q < 0.7:
            n = rng.choice(g.names).encode()
            return n.upper() if rng.random() < 0.3 else n
        if q < 0.9:
            return rng.choice(SUBS)
        return rng.choice([b"nosuch", b"", b"get|x", b"client|"])

    if r < 0.15:
        return [g.opt(b"COUNT")] + g.many(g.val, 0, 1), "command"
    if r < 0.4:
        return [g.opt(b"INFO")] + [name() for _ in range(
            rng.randint(1, 3))], "command"
    if r < 0.6:
        return [g.opt(b"DOCS")] + [name() for _ in range(
            rng.randint(1, 3))], "command"
    if r < 0.7:
        a = [g.opt(b"LIST")]
        q = rng.random()
        if q < 0.4:
            a += [g.opt(b"FILTERBY"), g.opt(b"PATTERN"),
                  rng.choice(PATTERNS + [b"client*", b"z*", b"*|*"])]
        elif q < 0.7:
            a += [g.opt(b"FILTERBY"), g.opt(b"ACLCAT"),
                  rng.choice([b"read", b"write", b"string", b"hash",
                              b"@hash", b"connection", b"nosuch"])]
        elif q < 0.8:
            a += [g.opt(b"FILTERBY"), g.opt(b"MODULE"), b"x"]
        elif q < 0.9:
            a += rng.choice([[b"x"], [b"FILTERBY"], [b"FILTERBY", b"x"]])
        return a, "command"
    if r < 0.95:  # the keys of a command made as the stream makes it
        i = rng.randrange(len(g.names))
        g.fam = g.fams[i]
        args = g.fns[i](g)
        if isinstance(args, tuple):
            args = args[0]
        if rng.random() < 0.1 and args:
            args = args[:rng.randrange(len(args))]
        return [g.opt(b"GETKEYS"), g.names[i].encode()] + args, "command"
    return [rng.choice([b"nosuch", b"HELP x", b"GETKEYS"])], "command"


def fields(text, own):
    """CLIENT INFO's or LIST's lines as field dicts, the masked fields
    and the ones only redis has left out; own: only the line of the
    connection that asked (cmd=client|list)."""
    drop = {b"id", b"addr", b"laddr", b"fd", b"age", b"idle", b"qbuf",
            b"qbuf-free", b"argv-mem", b"multi-mem", b"rbs", b"rbp", b"obl",
            b"oll", b"omem", b"tot-mem"}
    out = []
    for line in text.split(b"\n"):
        if not line:
            continue
        f = dict(w.split(b"=", 1) for w in line.split(b" ") if b"=" in w)
        if own and f.get(b"cmd") != b"client|list":
            continue
        if b"flags" in f:  # U: redis's client is on a unix socket
            f[b"flags"] = f[b"flags"].replace(b"U", b"") or b"N"
        out.append({k: v for k, v in f.items() if k not in drop})
    return out


def hint(args):
    """redis-cli 7.0's hint of COMMAND DOCS's arguments (cliAddArgument)."""
    def one(a):
        m = {k[1]: v for k, v in (pairs_of(a) or [])}
        typ = m.get(b"type", ("$", b""))[1]
        name = m.get(b"name", ("$", b""))[1] or b'""'
        fl = {f[1] for f in (arr(m[b"flags"]) if b"flags" in m else [])}
        tok = m[b"token"][1] or b'""' if b"token" in m else b""
        if typ in (b"oneof", b"block"):
            sep = b"|" if typ == b"oneof" else b" "
            rep = sep.join(one(x) for x in arr(m[b"arguments"]))
        elif typ == b"pure-token":
            rep = b""
        else:
            rep = name
        if tok and typ != b"pure-token":
            tok += b" "
        t = tok + rep
        if b"multiple" in fl:
            t += b" [" + (tok if b"multiple_token" in fl else b"") + rep + \
                b" ...]"
        return b"[" + t + b"]" if b"optional" in fl else t
    return b" ".join(one(a) for a in args or [])


def doc_of(d, keep):
    """A COMMAND DOCS entry as what redis-cli reads of it: summary,
    since, group, the hint, the subcommands (those of keep)."""
    m = {k[1]: v for k, v in (pairs_of(d) or [])}
    subs = pairs_of(m[b"subcommands"]) if b"subcommands" in m else []
    return (m.get(b"summary"), m.get(b"since"), m.get(b"group"),
            hint(arr(m[b"arguments"]) if b"arguments" in m else []),
            tuple(sorted((k[1], doc_of(v, keep)) for k, v in subs
                         if k[1] in keep)))


def info_of(e, keep):
    """A COMMAND INFO entry: name, arity, flags, first, last, step, ACL
    categories, the subcommands (those of keep); None for a null."""
    f = arr(e)
    if f is None:
        return None
    return (f[0][1], f[1][1], frozenset(x[1] for x in arr(f[2])), f[3][1],
            f[4][1], f[5][1], frozenset(x[1] for x in arr(f[6])),
            tuple(sorted((info_of(x, keep) for x in arr(f[9])
                          if arr(x)[0][1] in keep), key=repr)))


def masked_hello(runner, args, a, b):
    x, y = pairs_of(a), pairs_of(b)
    if x is None or y is None:
        return "differ"
    x = {k[1]: v for k, v in x}
    y = {k[1]: v for k, v in y}
    if x.keys() != y.keys() or y[b"id"][0] != ":" or \
            not (y[b"version"][1] or b"").startswith(b"7.0."):
        return "differ (in its fields, or id, version)"
    for k in (b"server", b"id", b"version"):
        del x[k], y[k]
    return None if x == y else "differ (server, id, version masked)"


def masked_int(runner, args, a, b):
    return None if a[0] == b[0] == ":" else "differ (the value masked)"


def masked_clients(runner, args, a, b):
    if a[0] not in "$=" or a[1] is None or b[1] is None:
        return "differ"
    own = args[1].upper() == b"LIST"
    x, y = fields(a[1], own), fields(b[1], own)
    if len(x) != len(y) or any(set(q) - set(p) for p, q in zip(x, y)):
        return "differ (in the lines, or a field redis has not)"
    for p, q in zip(x, y):
        if {k: v for k, v in p.items() if k in q} != q:
            return "differ (id, addresses, fd, age, idle masked)"
    return None


def masked_cmdinfo(runner, args, a, b):
    """args: COMMAND INFO's; None, or no name: the whole table (redis's
    commands that kv_server has)."""
    x, y = arr(a), arr(b)
    if x is None or y is None:
        return "differ"
    keep = runner.kvnames
    if not args or len(args) <= 2:  # redis's, of kv_server's commands
        x = [e for e in x if arr(e)[0][1] in keep]
        x = sorted(x, key=lambda e: arr(e)[0][1])
        y = sorted(y, key=lambda e: arr(e)[0][1])
    if len(x) != len(y):
        return "differ"
    asked = [n.lower() for n in args[2:]] if args and len(args) > 2 else \
        [None] * len(x)
    for n, p, q in zip(asked, x, y):
        if n is not None and n not in keep:  # redis's alone: none here
            p = ("_", None)
        if info_of(p, keep) != info_of(q, keep):
            return "differ (%s, key specs and tips left out)" % show(q, 80)
    return None


def masked_cmddocs(runner, args, a, b):
    x, y = pairs_of(a), pairs_of(b)
    if x is None or y is None:
        return "differ"
    keep = runner.kvnames
    x = {k[1]: doc_of(v, keep) for k, v in x if k[1] in keep}
    y = {k[1]: doc_of(v, keep) for k, v in y if k[1] in keep}
    if x != y:
        bad = sorted(set(x) ^ set(y)) or \
            [k for k in sorted(x) if x[k] != y[k]]
        return "differ (as redis-cli reads them: %r)" % bad[:3]
    return None


def masked_cmdlist(runner, args, a, b):
    x, y = arr(a), arr(b)
    if x is None or y is None:
        return "differ"
    keep = runner.kvnames
    x = set(e[1] for e in x if e[1] in keep)
    y = set(e[1] for e in y)
    return None if x == y else "differ (redis's, of kv_server's names)"


def masked_client(runner, args, a, b):
    """CLIENT, by its subcommand (what the stream cut short included)."""
    sub = args[1].upper() if len(args) > 1 else b""
    if sub == b"ID":
        return masked_int(runner, args, a, b)
    if sub in (b"INFO", b"LIST"):
        return masked_clients(runner, args, a, b)
    return "differ"


def masked_config(runner, args, a, b):
    if len(args) > 1 and args[1].upper() == b"GET":
        return runner.check(args, "pairs", a, b)
    return "differ"


def masked_command(runner, args, a, b):
    """COMMAND, by its subcommand (none: the whole table)."""
    sub = args[1].upper() if len(args) > 1 else b"INFO"
    if sub == b"COUNT":
        return masked_int(runner, args, a, b)
    if sub == b"INFO":
        return masked_cmdinfo(runner, args, a, b)
    if sub == b"DOCS":
        return masked_cmddocs(runner, args, a, b)
    if sub == b"LIST":
        return masked_cmdlist(runner, args, a, b)
    return "differ"


MASKED = {"hello": masked_hello, "client": masked_client,
          "config": masked_config, "command": masked_command}


# ---- the rest: unknown commands, and SCAN's errors


UNKNOWN = [b"NOSUCH", b"nosuchcmd", b"GETX", b"foo", b"", b"x\x00y",
           b"set2", b"\r\n", b"a b", b"HGETALLL", b"ZZ" * 80]


def unknown(g):
    """An unknown command: named here, made by command()'s caller."""
    rng = g.rng
    return [rng.choice(UNKNOWN)] + g.many(
        lambda: g.val() if rng.random() < 0.7 else (b"w" * 200),
        0, 4)


def scan_error(g):
    """SCAN, SSCAN, HSCAN, ZSCAN forms that are errors for any keyspace:
    their replies never depend on cursors."""
    rng = g.rng
    which = rng.choice(g.scan)
    # (strtoul's: "", "-1" and "1\0" are cursors: 0, the largest, 1)
    bad = rng.choice([b"abc", b"1.5", b" 1", b"18446744073709551616",
                      b"0x1", b"1 ", b"\t0"])
    if which == "scan":
        r = rng.random()
        if r < 0.4:
            return [b"SCAN", bad]
        return [b"SCAN", b"0"] + rng.choice(
            [[b"COUNT", b"0"], [b"COUNT", b"x"], [b"COUNT", b"-1"],
             [b"MATCH"], [b"BADOPT", b"1"], [b"COUNT"], [b"TYPE"]])
    return [which.upper().encode(), g.key(), bad]


class Stream(Gen):
    def command(self):
        rng = self.rng
        if self.pending:
            return self.pending.pop(), "hello"
        r = rng.random()
        if r < 0.01:
            return unknown(self), "eq"
        if self.scan and r < 0.013:
            return scan_error(self), "eq"
        c = Gen.command(self)
        if self.resp3 and c[0][0].upper() == b"RESET":
            self.pending.append([b"HELLO", b"3"])  # RESET: back to RESP2
        return c


# -------------------------------------------------------------- checks ---


def is_err(r):
    return r[0] in "-!"


def arr(r):
    """An array's (or a set's) elements, or None."""
    return r[1] if r[0] in "*~" and r[1] is not None else None


def flat(items):
    """RESP3's [member, score] pairs (ZRANGE WITHSCORES, ZRANDMEMBER) as
    RESP2's flat list; anything else as it is."""
    if items and all(e[0] == "*" and e[1] is not None and len(e[1]) == 2
                     for e in items):
        return [x for e in items for x in e[1]]
    return items


def pairs_of(r):
    """A map's pairs (RESP3), or an array's elements two by two; None."""
    if r[0] == "%":
        return r[1]
    x = arr(r)
    if x is None or len(x) % 2:
        return None
    return list(zip(x[::2], x[1::2]))


def sorted_items(r):
    return sorted(r, key=repr)


class Mismatch:
    def __init__(self, index, why, a, b, crash=False, end=None):
        self.index, self.why, self.a, self.b = index, why, a, b
        self.crash = crash  # kv_server gone: no reply from index on
        self.end = index if end is None else end  # the culprit's last place


class Runner:
    def __init__(self, redis, kv, opts):
        self.redis, self.kv, self.o = redis, kv, opts
        self.maxdur = 0.0  # the longest batch, s: the clocks' leeway
        self.batches = 0
        self.replies = 0  # replies compared
        self.skipped = 0  # lex commands not sent (FIRST)
        self.stats = {} if opts.stats else None
        # kv_server's commands and subcommands, for COMMAND INFO, DOCS
        # and LIST (redis's others are left out); each server's
        # maxclients, put back at the end (CONFIG SET), and meanwhile
        # redis-server's on both (a run before may have left another)
        got = self.one(kv, [[b"COMMAND", b"LIST"]])[0]
        self.kvnames = set(e[1] for e in arr(got) or [])
        self.maxclients = [self.config_get(s, b"maxclients")
                           for s in (redis, kv)]
        if not opts.kv_is_redis and self.maxclients[0] is not None:
            self.set_config([self.maxclients[0]] * 2)

    def tables(self):
        """COMMAND DOCS and COMMAND, whole, once: what redis-cli reads of
        each of kv_server's commands (and subcommands), and each one's
        COMMAND entry, as redis-server's. None, or what differs."""
        if self.o.kv_is_redis:
            return None
        rd = self.one(self.redis, [[b"COMMAND", b"DOCS"]])[0]
        kd = self.one(self.kv, [[b"COMMAND", b"DOCS"]])[0]
        why = masked_cmddocs(self, None, rd, kd)
        if why:
            return "COMMAND DOCS: " + why
        ki = self.one(self.kv, [[b"COMMAND"]])[0]
        names = [arr(e)[0][1] for e in arr(ki) or []]
        ri = self.one(self.redis, [[b"COMMAND", b"INFO"] + names])[0]
        why = masked_cmdinfo(self, None, ri, ki)
        self.replies += 2 * len(names)
        return "COMMAND: " + why if why else None

    def config_get(self, srv, name):
        got = pairs_of(self.one(srv, [[b"CONFIG", b"GET", name]])[0])
        return got[0][1][1] if got else None

    def set_config(self, maxclients):
        for s, n in zip((self.redis, self.kv), maxclients):
            if n is not None:
                self.one(s, [[b"CONFIG", b"SET", b"maxclients", n,
                              b"timeout", b"0"]])

    def restore(self):
        """The settings the stream may have changed, as they were."""
        self.set_config(self.maxclients)

    # -- talking
    def both(self, batch):
        data = b"".join(encode(it[0]) for it in batch)
        t0 = time.monotonic()
        try:
            r = exchange([(self.redis, data, len(batch)),
                          (self.kv, data, len(batch))], self.o.timeout)
        finally:
            self.maxdur = max(self.maxdur, time.monotonic() - t0)
        self.batches += 1
        return r

    def one(self, srv, cmds):
        return exchange([(srv, b"".join(encode(c) for c in cmds),
                          len(cmds))], self.o.timeout)[0]

    def flushall(self):
        """An empty keyspace, the run's protocol (a RESET in a stream
        ends RESP3) and no name."""
        proto = b"3" if self.o.resp3 else b"2"
        for s in (self.redis, self.kv):
            r = self.one(s, [[b"FLUSHALL"], [b"HELLO", proto],
                             [b"CLIENT", b"SETNAME", b""]])
            if r[0] != ("+", b"OK"):
                raise Closed(s, [], "answered FLUSHALL with %s" % show(r[0]))

    # -- one batch: None, or (index in batch, why, redis reply, kv reply)
    def run(self, batch):
        if batch[0][1] == "scan":
            return self.scan_step(batch[0][0])
        if batch[0][1] in FIRST:
            args = batch[0][0]
            at = 1 if batch[0][1] == "lex" else 2
            if len(args) > at and self.mixed(args[at]):
                self.skipped += 1
                if len(batch) == 1:
                    return None
                m = self.run(batch[1:])
                if m:
                    m.index += 1
                    m.end += 1
                return m
        try:
            rr, kr = self.both(batch)
        except Closed as e:
            if e.server is self.redis:
                raise
            # redis-server's replies read to the end, kv_server's that it
            # sent compared, then the first it did not send
            rr = e.all[0]
            m = self.compare_all(batch, rr, e.got)
            if m:
                return m
            # a server may send a batch's replies together: the command
            # that ended it is this one or one after it in the batch
            j = len(e.got)
            return Mismatch(j, self.kv.name + " " + e.why, rr[j], "<none>",
                            True, len(batch) - 1)
        return self.compare_all(batch, rr, kr)

    def mixed(self, key):
        """True if redis-server's key is a zset of mixed scores."""
        lo, hi = self.one(self.redis, [
            [b"ZRANGE", key, b"0", b"0", b"WITHSCORES"],
            [b"ZRANGE", key, b"-1", b"-1", b"WITHSCORES"]])
        lo, hi = flat(arr(lo) or []), flat(arr(hi) or [])
        return bool(lo and hi and lo[1] != hi[1])

    def compare_all(self, batch, rr, kr):
        st = self.stats
        for j, ((args, kind, _), a, b) in enumerate(zip(batch, rr, kr)):
            why = self.check(args, kind, a, b)
            self.replies += 1
            if st is not None:
                n = st.setdefault(args[0].upper(), [0, 0, 0, 0, 0])
                n[0] += 1
                n[1] += a[0] == "-"
                n[2] += a[0] == "-" and b"WRONGTYPE" in a[1]
                n[3] += a != b
                n[4] += a[0] != "-" and a[1] not in (None, [], 0, b"")
            if why:
                return Mismatch(j, why, a, b)
        return None

    def print_stats(self):
        """--stats: for each command, how many were sent, how many of
        redis's replies were errors (WRONGTYPE among them), and how many
        replies were not the same bytes but right (normalized), and how
        many said something: not an error, nil, empty, 0."""
        print("%-18s %7s %7s %7s %7s %7s" % (
            "command", "sent", "errors", "wrongt", "normal", "some"),
            file=sys.stderr)
        print("(lex commands not sent, on mixed scores: %d)" % self.skipped,
              file=sys.stderr)
        for k in sorted(self.stats):
            print("%-18s %7d %7d %7d %7d %7d" % (
                (cli_line([k])[:18],) + tuple(self.stats[k])),
                file=sys.stderr)

    def check(self, args, kind, a, b):
        """None if kv's reply b is right, redis's being a; else why not."""
        if a == b:
            return None
        if is_err(a) or is_err(b) or a[0] != b[0]:
            return "differ"
        if kind == "set":
            x, y = arr(a), arr(b)
            if x is not None and y is not None and \
                    sorted_items(x) == sorted_items(y):
                return None
            return "differ (sorted)"
        if kind == "pairs":
            x, y = pairs_of(a), pairs_of(b)
            if x is not None and y is not None and \
                    sorted(x, key=repr) == sorted(y, key=repr):
                return None
            return "differ (as sorted pairs)"
        if kind in MASKED:
            return MASKED[kind](self, args, a, b)
        if kind in ("ttl", "pttl", "time", "ptime"):
            return self.check_ttl(kind, a, b)
        if kind == "spop":
            return self.check_spop(args, a, b)
        if kind == "srand":
            return self.check_rand(args, a, b, b"SMEMBERS", False)
        if kind == "hrand":
            return self.check_rand(args, a, b, b"HGETALL", True)
        if kind == "zrand":
            return self.check_rand(args, a, b, b"ZRANGE", True)
        if kind == "randomkey":
            return self.check_randomkey(a, b)
        return "differ"

    def check_ttl(self, kind, a, b):
        if a[0] != ":" or b[0] != ":":
            return "differ"
        x, y = a[1], b[1]
        if x < 0 or y < 0:
            return "differ (-2: no key, -1: no expiry)"
        ms = kind in ("pttl", "ptime")
        slack = 2 * self.maxdur  # each set, and each read, in one batch
        tol = int(slack * 1000) + 1 if ms else int(slack) + 1
        top = MAX_TTL_MS if ms else MAX_TTL_MS // 1000
        if y == 0 or y > top or abs(x - y) > tol:
            return "differ by more than %d (twice the longest batch, " \
                "%.3f s, and one for rounding)" % (tol, self.maxdur)
        return None

    def members(self, key, cmd):
        if cmd == b"ZRANGE":
            q = [b"ZRANGE", key, b"0", b"-1", b"WITHSCORES"]
        else:
            q = [cmd, key]
        r = self.one(self.redis, [q])[0]
        x = arr(r)
        if x is None:
            return {}
        x = flat(x)
        if cmd == b"SMEMBERS":
            return {m[1]: None for m in x}
        return {x[i][1]: x[i + 1][1] for i in range(0, len(x), 2)}

    def check_spop(self, args, a, b):
        key = args[1]
        s_after = self.members(key, b"SMEMBERS")  # redis's, popped
        if len(args) == 2:
            if a[0] != "$" or b[0] != "$" or a[1] is None or b[1] is None:
                return "differ"
            mine, theirs = [b[1]], [a[1]]
        else:
            x, y = arr(a), arr(b)
            if x is None or y is None or len(x) != len(y):
                return "differ in length"
            mine, theirs = [m[1] for m in y], [m[1] for m in x]
            if len(set(mine)) != len(mine):
                return "repeats an element (SPOP's are distinct)"
        popped = set(theirs)
        for m in mine:
            if m not in popped and m not in s_after:
                return "pops %r, not a member" % m
        add = [m for m in mine if m not in popped]
        rem = [m for m in theirs if m not in set(mine)]
        if add:  # kv_server's set made redis-server's again
            fix = [[b"SADD", key] + add, [b"SREM", key] + rem]
            got = self.one(self.kv, fix)
            if got != [(":", len(add)), (":", len(rem))]:
                return "differ; then SADD, SREM to make the sets " \
                    "the same again answered %s" % show(("*", got))
        return None

    def check_rand(self, args, a, b, cmd, withv):
        """SRANDMEMBER HRANDFIELD ZRANDMEMBER: redis's rules, not its
        chance: as many, distinct for a positive count, each a member
        (with its value or score)."""
        key = args[1]
        have = self.members(key, cmd)
        if len(args) == 2:
            if a[0] != "$" or b[0] != "$" or a[1] is None or b[1] is None:
                return "differ"
            return None if b[1] in have else "%r is not a member" % b[1]
        x, y = arr(a), arr(b)
        if x is None or y is None or len(x) != len(y):
            return "differ in length"
        x, y = flat(x), flat(y)
        pairs = len(args) > 3 and withv
        if pairs:
            ys = [(y[i][1], y[i + 1][1]) for i in range(0, len(y), 2)]
        else:
            ys = [(m[1], None) for m in y]
        try:
            count = int(args[2])
        except ValueError:
            return "differ"
        if count > 0 and len(set(e for e, _ in ys)) != len(ys):
            return "repeats an element (a positive count's are distinct)"
        for e, v in ys:
            if e not in have:
                return "%r is not a member" % e
            if pairs and have[e] != v:
                return "%r comes with %r, not %r" % (e, v, have[e])
        return None

    def check_randomkey(self, a, b):
        if a[0] != "$" or b[0] != "$" or (a[1] is None) != (b[1] is None):
            return "differ"
        r = self.one(self.redis, [[b"EXISTS", b[1]]])[0]
        return None if r == (":", 1) else "%r is not a key" % b[1]

    # -- the scan step: both iterated to cursor 0, what they saw compared
    def scan_all(self, srv, args):
        name = args[0].upper()
        at = 2 if name != b"SCAN" else 1
        cursor, seen, first = b"0", [], None
        for _ in range(100000):
            q = args[:at] + [cursor] + args[at:]
            r = self.one(srv, [q])[0]
            if first is None:
                first = r
            x = arr(r)
            if is_err(r) or x is None or len(x) != 2 or x[0][0] != "$" or \
                    arr(x[1]) is None:
                return first, None
            cursor = x[0][1]
            seen += [e[1] for e in x[1][1]]
            if cursor == b"0":
                break
        else:
            return first, "no cursor 0 in 100000 calls"
        if name in (b"HSCAN", b"ZSCAN"):
            return first, sorted(set(zip(seen[::2], seen[1::2])))
        return first, sorted(set(seen))

    def scan_step(self, args):
        try:
            fa, sa = self.scan_all(self.redis, args)
            fb, sb = self.scan_all(self.kv, args)
        except Closed as e:
            if e.server is self.redis:
                raise
            return Mismatch(0, self.kv.name + " " + e.why, ("-", b"?"),
                            "<none>", True)
        self.batches += 1
        if isinstance(sa, str):
            raise Closed(self.redis, [], sa)
        if isinstance(sb, str):
            return Mismatch(0, sb, fa, fb)
        if sa is None or sb is None:
            if fa == fb:
                return None
            return Mismatch(0, "differ (the first call)", fa, fb)
        if sa != sb:
            def reply(seen):
                return ("*", [("$", e) if isinstance(e, bytes) else
                              ("*", [("$", e[0]), ("$", e[1])])
                              for e in seen])
            return Mismatch(0, "the sets seen, iterated to cursor 0, differ",
                            reply(sa), reply(sb))
        return None


# ---------------------------------------------------------- reduction ---


def rebatch(items, size=64):
    """items in batches as they were first sent (by their batch number),
    CUT, FIRST and scan steps where they end or begin one."""
    out, cur = [], []
    for it in items:
        if cur and (it[2] != cur[-1][2] or it[1] in FIRST or
                    it[1] == "scan" or len(cur) >= size):
            out.append(cur)
            cur = []
        cur.append(it)
        if it[1] in CUT or it[1] == "scan":
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


class Reducer:
    """Delta debugging: chunks of the stream removed as long as what is
    left, replayed on both servers after FLUSHALL, still fails the same
    way: a mismatch first at the same (last) command, or kv_server gone
    (crash)."""

    def __init__(self, runner, restart, crash):
        self.r = runner
        self.restart = restart  # None, or a function: a fresh kv_server
        self.crash = crash
        self.tests = 0

    def fails(self, items):
        self.tests += 1
        r = self.r
        try:
            if not self.alive():
                return False
            r.flushall()
            done = 0
            for b in rebatch(items):
                m = r.run(b)
                if m is not None:
                    if m.crash and self.restart:
                        self.restart()
                    if self.crash:
                        return m.crash
                    return not m.crash and done + m.index == len(items) - 1
                done += len(b)
        except Closed as e:
            if e.server is r.redis:
                raise
            if self.restart:
                self.restart()
            return self.crash
        return False

    def alive(self):
        try:
            got = self.r.one(self.r.kv, [[b"PING"]])
            return got == [("+", b"PONG")]
        except Closed:
            if not self.restart:
                return False
            self.restart()
            return True

    def ddmin(self, items, keep_last, deadline):
        """The shortest items found that fail; the last one is kept if
        keep_last."""
        last = items[-1:] if keep_last else []
        body = items[:-1] if keep_last else items
        n = 2
        while len(body) >= 1:
            if time.monotonic() > deadline:
                return body + last, False
            chunk = (len(body) + n - 1) // n
            reduced = False
            for i in range(0, len(body), chunk):
                if time.monotonic() > deadline:
                    return body + last, False
                cand = body[:i] + body[i + chunk:]
                if self.fails(cand + last):
                    body = cand
                    n = max(n - 1, 2)
                    reduced = True
                    break
            if not reduced:
                if n >= len(body):
                    break
                n = min(len(body), n * 2)
        return body + last, True

    def guesses(self, items):
        """Shorter streams that may well fail as items does, shortest
        first: the end of it alone (of what touched the failing
        command's keys, or the last batches before a crash)."""
        if self.crash:
            for k in (1, 4, 32):
                yield [it for it in items if it[2] > items[-1][2] - k]
            return
        body, last = items[:-1], items[-1:]
        yield last
        keys = set(a for a in last[0][0][1:] if a in KEYSET)
        keep = []
        for it in reversed(body):
            ks = set(a for a in it[0][1:] if a in KEYSET)
            if it[0][0].upper() in (b"FLUSHALL", b"FLUSHDB") or ks & keys:
                keep.append(it)
                keys |= ks
        keep.reverse()
        for k in (16, 128, 1024, 8192):
            if k < len(keep):
                yield keep[-k:] + last
        yield keep + last

    def reduce(self, items, seconds):
        """(the shortest stream found, a note), or (None, why not)."""
        deadline = time.monotonic() + seconds
        found = False
        for cand in self.guesses(items):
            if time.monotonic() > deadline:
                break
            if len(cand) < len(items) and self.fails(cand):
                items, found = cand, True
                break
        if not found and not self.fails(items):
            return None, "the stream does not fail again when replayed"
        red, whole = self.ddmin(items, not self.crash, deadline)
        return red, "reduced, %d replays" % self.tests if whole else \
            "reduction stopped after %g s, %d replays" % (seconds,
                                                        self.tests)


# --------------------------------------------------------------- main ---


def where(s):
    return s if "/" in s else int(s)


def start_kv(cmd, log):
    """A fresh kv_server from cmd (its "listening on H:P" read from its
    stdout): (process, port). It dies with this process."""
    def child():
        try:
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    p = subprocess.Popen("exec " + cmd, shell=True, stdout=subprocess.PIPE,
                         stderr=log, preexec_fn=child)
    line = p.stdout.readline().decode(errors="replace")
    if "listening on" not in line:
        p.kill()
        p.wait()
        raise SystemExit("kv-diff: --kv-cmd printed %r" % line)
    return p, int(line.rsplit(":", 1)[1])


def implemented(kv, timeout):
    r = exchange([(kv, encode([b"COMMAND"]), 1)], timeout)[0][0]
    x = arr(r)
    if x is None:
        raise SystemExit("kv-diff: COMMAND answered %s" % show(r))
    return set(e[1][0][1].decode().lower() for e in x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--redis", required=True, type=where)
    ap.add_argument("--kv", required=True, type=where)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--commands", required=True, type=int)
    ap.add_argument("--batch-max", type=int, default=64)
    ap.add_argument("--quiet", action="store_true",
                    help="no progress line (on stderr) each 100000 commands")
    ap.add_argument("--all-commands", action="store_true",
                    help="every generator, not only what COMMAND lists")
    ap.add_argument("--kv-is-redis", action="store_true",
                    help="--kv is a second redis-server")
    ap.add_argument("--kv-cmd",
                    help="a shell command that starts a fresh kv_server "
                    "(for the reduction, when kv_server died)")
    ap.add_argument("--reduce-seconds", type=float, default=60)
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds a server may send nothing")
    ap.add_argument("--no-approx-trim", dest="approx_trim",
                    action="store_false",
                    help='no "~" in XADD and XTRIM')
    ap.add_argument("--skip", default="",
                    help="commands not to generate, by comma: to look past "
                    "a known mismatch")
    ap.add_argument("--stats", action="store_true",
                    help="a table of replies by command, on stderr")
    ap.add_argument("--resp3", action="store_true",
                    help="HELLO 3 on each connection: every reply RESP3")
    o = ap.parse_args()
    if o.batch_max < 1 or o.commands < 0:
        ap.error("--batch-max 1 or more, --commands 0 or more")
    other = "redis-server#2" if o.kv_is_redis else "kv_server"
    proto = 3 if o.resp3 else 2
    redis = Server("redis-server", o.redis, o.timeout, proto)
    kv = Server(other, o.kv, o.timeout, proto)

    if o.all_commands or o.kv_is_redis:
        names = set(GEN)
    else:
        names = implemented(kv, o.timeout)
        missing = sorted(n for n in names if n not in GEN and
                         n not in EXEMPT)
        if missing:
            print("kv-diff: kv_server implements %s, with no generator in "
                  "tests/kv-diff.py: add one (or put it in EXEMPT, with "
                  "the reason)" % " ".join(missing))
            return 1
    names -= set(n.strip().lower() for n in o.skip.split(",") if n.strip())
    if not (names & set(GEN)):
        print("kv-diff: nothing to generate")
        return 1
    runner = Runner(redis, kv, o)
    runner.flushall()
    why = runner.tables()
    if why:
        print("kv-diff: MISMATCH, seed %d, RESP%d, before the stream: %s" %
              (o.seed, proto, why))
        return 1
    stream = Stream(o.seed, names, o.approx_trim, o.resp3)
    done = 0
    bad = None
    step = 100000
    for batch in stream.batches(o.commands, o.batch_max):
        m = runner.run(batch)
        if m is not None:
            bad = (done, batch, m)
            break
        done += len(batch)
        if not o.quiet and done >= step:
            print("kv-diff: seed %d, %d commands" % (o.seed, done),
                  file=sys.stderr)
            step += 100000
    if o.stats:
        runner.print_stats()
    if bad is None:
        runner.restore()
        print("%d commands, seed %d, RESP%d, 0 mismatches (%d pipelined "
              "batches, %d replies compared)"
              % (done, o.seed, proto, runner.batches, runner.replies))
        return 0
    return report(o, names, runner, redis, kv, other, *bad)


def report(o, names, runner, redis, kv, other, done, batch, m):
    """The mismatch, the shortest stream that still fails, the rerun."""
    index, end = done + m.index, done + m.end
    nbatches = runner.batches
    print("kv-diff: MISMATCH, seed %d, command %d: %s" %
          (o.seed, index, cli_line(batch[m.index][0])))
    print("  %s: %s" % ("redis-server", show(m.a)))
    print("  %-12s: %s (%s)" % (other, show(m.b), m.why))
    if m.crash and end > index:
        print("  (the replies of a batch may come together: what ended it "
              "is one of commands %d to %d)" % (index, end))
    rerun = [sys.argv[0]]
    skip = False
    for a in sys.argv[1:]:
        if skip:
            skip = False
        elif a in ("--commands", "--kv"):
            skip = True
        elif not a.startswith("--commands=") and not a.startswith("--kv="):
            rerun.append(a)
    rerun += ["--kv", "PORT" if o.kv_cmd or m.crash else str(o.kv),
              "--commands", str(end + 1)]
    sys.stdout.flush()

    # the stream made again up to the mismatch, then reduced
    items = []
    for b in Stream(o.seed, names, o.approx_trim,
                    o.resp3).batches(end + 1, o.batch_max):
        items += b
    if not m.crash:
        items = items[:index + 1]
    restart, procs = None, []
    if o.kv_cmd and not o.kv_is_redis:
        log = open(os.devnull, "wb")

        def restart():
            for p in procs:
                p.kill()
                p.wait()
            del procs[:]
            p, port = start_kv(o.kv_cmd, log)
            procs.append(p)
            kv.where = port
            kv.connect()
    try:
        try:
            kv.connect()
        except OSError:
            pass  # gone: restart, or no reduction
        redis.connect()
        red, note = Reducer(runner, restart, m.crash).reduce(
            items, o.reduce_seconds)
    except (Closed, OSError) as e:
        red, note = None, "no reduction: %s" % e
    finally:
        for p in procs:
            p.kill()
            p.wait()
    try:  # the settings as they were, for the runs after this one
        runner.restore()
    except (Closed, OSError):
        pass
    if red is None and m.crash and not restart:
        note += "; --kv-cmd starts a fresh kv_server for each replay"
    if red is None:
        print("  not reduced (%s); the last commands up to it:" % note)
        red = items[-40:]
    else:
        print("  the shortest failing stream found (%s): %d commands, "
              "after FLUSHALL:" % (note, len(red)))
        if len(red) > 100:
            print("    # (the first %d left out: the rerun line makes them "
                  "all)" % (len(red) - 100))
            red = red[-100:]
    for it in red:
        print("    " + ("# scan step, iterated to cursor 0: "
                        if it[1] == "scan" else "") + cli_line(it[0]))
    print("  rerun: python3 " + " ".join(shlex.quote(a) for a in rerun))
    print("%d commands, seed %d, 1 mismatches (%d pipelined batches)" %
          (index + 1, o.seed, nbatches))
    return 1


if __name__ == "__main__":
    sys.exit(main())
