#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile peer for tests/dist-hostile.sh: attacks an actors node
(tests/dist_hostile) over its distribution port, one connection per case,
with the standard library only (socket, struct, hashlib.md5).

  dist-hostile.py refuse|within|pieces|flood N  EPMD_PORT ALIVE HOST
                  COOKIE NODE_PID NODE_STDERR ERL_NAME

ALIVE@HOST is the node, found through epmd on EPMD_PORT; NODE_PID its
process, NODE_STDERR the file its standard error goes to; ERL_NAME the
name of the erl node the test keeps connected to it (one case claims it).

For each case, one line: "ok CASE: what was seen" or "FAIL CASE: what was
expected, what was seen"; "done N cases, N failed" at the end. A case
passes when the node closes the connection (EOF or ECONNRESET here), a
new line of its standard error names the refusal (the case's own text),
and the node is still alive. Every wait has a failure limit of LIMIT
seconds, and nothing passes or fails on time taken.

refuse: what the node must refuse.
  Unauthenticated (the handshake not done; lib/dist/handshake.c): a bad
  tag, a handshake length over ACT__HANDSHAKE_FRAME_MAX (1024), a 4-byte
  64 MiB length (read as a 2-byte one: a frame of 1024 bytes, at the
  bound) alone and with a body streamed after it, the version 5
  send_name, a name over 255 bytes, flags missing, a wrong cookie (under
  a new name and under the erl node's own), half a frame and a close.
  Authenticated (the handshake done with the cookie, and one round trip
  to the node's echo through it; lib/dist/conn.c and ctrl.c): a frame of
  a bad first byte, a distribution header (131 68, no atom cache
  negotiated) with an atom cache reference out of range, ATOM_CACHE_REF
  (82) in a pass-through frame's term, a message nested 100,000 deep, a
  4-byte length of 0xffffffff and of ACT__CONN_FRAME_MAX + 1 with no
  body, half a frame and a close.
within: authenticated, a 64 MiB length (within ACT__CONN_FRAME_MAX) with
  1 KiB of its body, then a close: the node waits, then says the node
  closed the connection (the test reads its memory around this run).
pieces: not an attack: authenticated, 120 messages to echo of 0 bytes
  to 200 KiB (many about 64 KiB, the reader's first buffer), their
  frames sent as one stream cut into pieces of 1 to 9,000 bytes at
  random (seeded; the seed is in the case's line), with pauses, so that
  the reader meets frames and length prefixes cut at every kind of place;
  each answer must come back whole and in order.
flood N: N send_names of distinct names, each with a wrong cookie, 32
  at a time; each refused and closed (the test then connects a node never
  seen before).
"""
import hashlib
import os
import random
import re
import socket
import struct
import sys
import threading
import time

LIMIT = 30.0  # seconds: a failure limit, never a time to meet

# lib/dist/flags.h
DFLAG_EXTENDED_REFERENCES = 0x4
DFLAG_DIST_MONITOR = 0x8
DFLAG_FUN_TAGS = 0x10
DFLAG_DIST_MONITOR_NAME = 0x20
DFLAG_NEW_FUN_TAGS = 0x80
DFLAG_EXTENDED_PIDS_PORTS = 0x100
DFLAG_EXPORT_PTR_TAG = 0x200
DFLAG_BIT_BINARIES = 0x400
DFLAG_NEW_FLOATS = 0x800
DFLAG_UTF8_ATOMS = 0x10000
DFLAG_MAP_TAG = 0x20000
DFLAG_BIG_CREATION = 0x40000
DFLAG_SEND_SENDER = 0x80000
DFLAG_HANDSHAKE_23 = 0x1000000
DFLAG_UNLINK_ID = 0x2000000
DFLAG_V4_NC = 0x4 << 32
REQUIRED = (DFLAG_EXTENDED_REFERENCES | DFLAG_FUN_TAGS |
            DFLAG_EXTENDED_PIDS_PORTS | DFLAG_NEW_FUN_TAGS |
            DFLAG_EXPORT_PTR_TAG | DFLAG_BIT_BINARIES | DFLAG_NEW_FLOATS |
            DFLAG_UTF8_ATOMS | DFLAG_MAP_TAG | DFLAG_BIG_CREATION |
            DFLAG_HANDSHAKE_23 | DFLAG_UNLINK_ID | DFLAG_V4_NC)
OURS = REQUIRED | DFLAG_DIST_MONITOR | DFLAG_DIST_MONITOR_NAME | \
    DFLAG_SEND_SENDER

HANDSHAKE_FRAME_MAX = 1024          # ACT__HANDSHAKE_FRAME_MAX
CONN_FRAME_MAX = (64 << 20) + 65536  # ACT__CONN_FRAME_MAX
CREATION = 0x1234


class Fail(Exception):
    """A case that could not be run as planned (its check fails)."""


# ---- the node: where it listens, what it logs, whether it lives ---------

def epmd_port_please(epmd_port, alive):
    """PORT_PLEASE2: the node's distribution port."""
    with socket.create_connection(("127.0.0.1", epmd_port), LIMIT) as s:
        req = b"z" + alive.encode()
        s.sendall(struct.pack(">H", len(req)) + req)
        resp = recv_exact(s, 4)
        if resp[0] != 119 or resp[1] != 0:
            raise Fail("epmd does not know %s: %r" % (alive, resp))
        return struct.unpack(">H", resp[2:4])[0]


def log_size(path):
    return os.path.getsize(path)


def wait_log(path, off, pattern, said):
    """The first line of path past off matching pattern: once one
    matching said (the node's word on the connection, whatever it is)
    is there, or LIMIT has passed; None when none matches pattern."""
    rx, said_rx = re.compile(pattern), re.compile(said)
    end = time.monotonic() + LIMIT
    while True:
        with open(path, "rb") as f:
            f.seek(off)
            lines = f.read().decode("utf-8", "replace").splitlines()
        for line in lines:
            if rx.search(line):
                return line
        if any(said_rx.search(l) for l in lines) or \
                time.monotonic() > end:
            return None
        time.sleep(0.05)


def new_lines(path, off):
    with open(path, "rb") as f:
        f.seek(off)
        return f.read().decode("utf-8", "replace").strip()


def alive(pid):
    """The node runs: not gone, not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


# ---- sockets ------------------------------------------------------------

def recv_exact(s, n):
    b = b""
    s.settimeout(LIMIT)
    while len(b) < n:
        try:
            k = s.recv(n - len(b))
        except socket.timeout:
            raise Fail("nothing from the node for %d s" % LIMIT)
        if not k:
            raise Fail("the node closed the connection (after %r)" % b)
        b += k
    return b


def wait_close(s):
    """Reads until the node closes: ("EOF" or "ECONNRESET", bytes read),
    or (None, bytes) past LIMIT."""
    got = b""
    end = time.monotonic() + LIMIT
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return None, got
        s.settimeout(left)
        try:
            k = s.recv(65536)
        except socket.timeout:
            return None, got
        except ConnectionResetError:
            return "ECONNRESET", got
        if not k:
            return "EOF", got
        got += k


def send_all(s, data):
    """Sends data; the node may close first (then the rest is not sent)."""
    s.settimeout(LIMIT)
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


# ---- the handshake, as the initiator (version 6) --------------------------

def hs_frame(body):
    return struct.pack(">H", len(body)) + body


def send_name(name, flags=OURS):
    n = name.encode()
    return hs_frame(b"N" + struct.pack(">QIH", flags, CREATION, len(n)) + n)


def recv_hs(s):
    n = struct.unpack(">H", recv_exact(s, 2))[0]
    return recv_exact(s, n)


def digest(cookie, challenge):
    return hashlib.md5((cookie + str(challenge)).encode()).digest()


def handshake(s, name, cookie):
    """send_name, status, challenge, reply (the digest of cookie): the
    status (its text) and our challenge, whose ack is to come."""
    s.sendall(send_name(name))
    st = recv_hs(s)
    if st == b"salive":
        s.sendall(hs_frame(b"strue"))
    elif st not in (b"sok", b"sok_simultaneous"):
        raise Fail("status %r, not ok" % st)
    ch = recv_hs(s)
    if len(ch) < 19 or ch[0:1] != b"N":
        raise Fail("a challenge of %r" % ch[:32])
    their = struct.unpack(">I", ch[9:13])[0]
    ours = random.getrandbits(32)
    s.sendall(hs_frame(b"r" + struct.pack(">I", ours) +
                       digest(cookie, their)))
    return st[1:].decode(), ours


def authenticate(s, name, cookie):
    _, ours = handshake(s, name, cookie)
    ack = recv_hs(s)
    if ack != b"a" + digest(cookie, ours):
        raise Fail("a challenge ack of %r, not our digest's" % ack)


# ---- terms and frames after the handshake ---------------------------------

def atom(a):
    a = a.encode()
    return bytes([119, len(a)]) + a  # SMALL_ATOM_UTF8_EXT


def pid(node):
    """A pid of node: NEW_PID_EXT (88), ID 1, serial 0."""
    return b"X" + atom(node) + struct.pack(">III", 1, 0, CREATION)


def frame(body):
    return struct.pack(">I", len(body)) + body


def reg_send(node, to, msg):
    """A pass-through frame: REG_SEND {6, From, '', To}, then msg (a term,
    its version byte not included)."""
    ctrl = bytes([104, 4, 97, 6]) + pid(node) + atom("") + atom(to)
    return frame(b"p" + b"\x83" + ctrl + b"\x83" + msg)


def user_msg(tag, data):
    """{Tag, <<Data>>}: the user form echo answers in kind."""
    return bytes([104, 2, 97, tag, 109]) + struct.pack(">I", len(data)) + \
        data


def round_trip(s, node, marker):
    """{1, marker} to the node's echo, and the answer back: the
    connection is up and the peer authenticated."""
    s.sendall(reg_send(node, "echo", user_msg(1, marker)))
    end = time.monotonic() + LIMIT
    while time.monotonic() < end:
        n = struct.unpack(">I", recv_exact(s, 4))[0]
        if n and marker in recv_exact(s, n):
            return
    raise Fail("no answer from echo within %d s" % LIMIT)


# ---- the cases --------------------------------------------------------------

class Run:
    def __init__(self, argv):
        (self.epmd, self.alive_name, self.host, self.cookie, pid_s,
         self.log, self.erl) = argv
        self.epmd = int(self.epmd)
        self.pid = int(pid_s)
        self.port = epmd_port_please(self.epmd, self.alive_name)
        self.failed = 0
        self.cases = 0
        self.k = 0
        self.prefix = "hp"  # a mode's own, so that no name is met twice

    def say(self, good, what, detail):
        print("%s %s: %s" % ("ok" if good else "FAIL", what, detail),
              flush=True)
        self.cases += 1
        if not good:
            self.failed += 1

    def name(self):
        self.k += 1
        return "%s%d@%s" % (self.prefix, self.k, self.host)

    def case(self, what, attack, pattern, peer=None, authed=False):
        """Runs attack(sock, peer) on a new connection; then the node
        must close it, log a new line matching pattern, and live."""
        off = log_size(self.log)
        peer = peer or self.name()
        if authed:
            said = r"actors: dist: node %s(:| down)" % re.escape(peer)
        else:
            said = r"actors: dist: connection from (a peer|%s) refused" % \
                re.escape(peer)
        try:
            s = socket.create_connection(("127.0.0.1", self.port), LIMIT)
        except OSError as e:
            self.say(False, what, "no connection to the node: %s" % e)
            return
        with s:
            try:
                sent = attack(s, peer) or ""
            except (Fail, OSError) as e:
                self.say(False, what, "the attack could not be made: %s; "
                         "the node's log: %s" % (e, new_lines(self.log, off)))
                return
            how, got = wait_close(s)
        pattern = pattern.replace("{peer}", re.escape(peer))
        line = wait_log(self.log, off, pattern, said)
        lives = alive(self.pid)
        seen = "%s%s; log: %s; node %s" % (
            how or "still open after %d s" % LIMIT,
            " after %r" % got[:40] if got else "",
            line or "(none matching)", "alive" if lives else "GONE")
        if how and line and lives:
            self.say(True, what, "%s%s" % (sent, seen))
        else:
            self.say(False, what,
                     "expected the connection closed, a line matching "
                     "/%s/ and the node alive; saw %s%s" % (
                         pattern, seen,
                         "" if line else "; new lines: %r" %
                         new_lines(self.log, off)[-600:]))

    # unauthenticated ------------------------------------------------------

    def unauthenticated(self):
        refused = r"actors: dist: connection from a peer refused: handshake: "
        self.case("garbage instead of send_name (tag 'X')",
                  lambda s, p: s.sendall(hs_frame(b"XGARBAGE")),
                  refused + r"expected the peer's name \('N'\), got a frame "
                  r"tagged 0x58$")
        self.case("a handshake length of 0xffff (over the bound of %d)" %
                  HANDSHAKE_FRAME_MAX,
                  lambda s, p: s.sendall(b"\xff\xff" + b"N" * 100),
                  refused + r"the peer's frame of 65535 bytes is over the "
                  r"bound of 1024$")
        self.case("a 4-byte length of 64 MiB (0x04000000) as the first "
                  "bytes, nothing after (a 2-byte length of 1024, at the "
                  "bound: closed at the setup deadline)",
                  lambda s, p: s.sendall(struct.pack(">I", 64 << 20)),
                  r"actors: dist: connection from a peer refused: the "
                  r"handshake took longer than its limit$")
        self.case("a 4-byte length of 64 MiB, then 1 MiB of body streamed "
                  "(refused on the 1024 bytes the handshake takes)",
                  lambda s, p: send_all(s, struct.pack(">I", 64 << 20) +
                                        bytes(1 << 20)),
                  refused + r"expected the peer's name \('N'\), got a frame "
                  r"tagged 0x00$")
        self.case("send_name of the version 5 handshake ('n', version 5)",
                  lambda s, p: s.sendall(hs_frame(
                      b"n\x00\x05" + struct.pack(">I", OURS & 0xffffffff) +
                      p.encode())),
                  refused + r"the peer speaks the version 5 handshake")

        def long_name(s, p):
            n = ("x" * 300 + "@" + self.host).encode()
            s.sendall(hs_frame(b"N" + struct.pack(">QIH", OURS, CREATION,
                                                  len(n)) + n))
        self.case("send_name with a name of %d bytes (over 255)" %
                  (301 + len(self.host)), long_name,
                  refused + r"the name in the peer's name frame is over "
                  r"255 bytes$")

        def no_flags(s, p):
            s.sendall(send_name(p, REQUIRED &
                                ~(DFLAG_UNLINK_ID | DFLAG_V4_NC)))
            st = recv_hs(s)
            if st != b"snot_allowed":
                raise Fail("status %r, not not_allowed" % st)
            return "status not_allowed, "

        self.case("send_name without UNLINK_ID and V4_NC (mandatory)",
                  no_flags, r"actors: dist: connection from "
                  r"{peer} refused: handshake: the peer {peer} lacks "
                  r"distribution flags we require: UNLINK_ID V4_NC ")

        def wrong_cookie(s, p):
            st, _ = handshake(s, p, "wrong" + self.cookie)
            return "status %s, a wrong digest sent, " % st

        self.case("a wrong challenge digest (another cookie)",
                  wrong_cookie,
                  r"actors: dist: connection from {peer} refused: "
                  r"handshake: challenge reply's digest does not match: "
                  r"wrong cookie")
        self.case("a wrong challenge digest under the erl node's own name "
                  "(%s)" % self.erl,
                  wrong_cookie,
                  r"actors: dist: connection from {peer} refused: "
                  r"handshake: challenge reply's digest does not match: "
                  r"wrong cookie", peer=self.erl)

        def half(s, p):
            s.sendall(send_name(p)[:9])
            s.shutdown(socket.SHUT_WR)
        self.case("half a send_name, then a close", half,
                  refused + r"the peer closed the connection before its "
                  r"name$")

    # authenticated ---------------------------------------------------------

    def authed(self, what, hostile, pattern):
        def attack(s, p):
            authenticate(s, p, self.cookie)
            round_trip(s, p, ("hello " + p).encode())
            return hostile(s, p) or "authenticated, echo answered; "
        self.case(what, attack, pattern, authed=True)

    def authenticated(self):
        refused = r"actors: dist: node {peer}: a frame refused: "
        self.authed("a frame of a bad first byte (0x2a)",
                    lambda s, p: s.sendall(frame(b"\x2a" + b"junk")),
                    refused + r"a frame that is not pass-through \(112\): "
                    r"connection closed$")

        def dist_header(s, p):
            # 131 68, one atom cache reference (an old entry, segment 0,
            # index 255: never made), then a REG_SEND whose name is
            # ATOM_CACHE_REF 5, past the header's one reference; the
            # terms after a distribution header have no version byte
            hdr = bytes([131, 68, 1, 0x00, 255])
            ctrl = bytes([104, 4, 97, 6]) + pid(p) + atom("") + \
                bytes([82, 5])
            s.sendall(frame(hdr + ctrl + user_msg(1, b"x")))
        self.authed("a distribution header (131 68: no atom cache "
                    "negotiated) with an atom cache reference out of range",
                    dist_header,
                    refused + r"a distribution header, and no atom cache "
                    r"was negotiated: connection closed$")
        self.authed("ATOM_CACHE_REF (82) in a pass-through frame's term",
                    lambda s, p: s.sendall(reg_send(
                        p, "echo", bytes([104, 2, 82, 200, 97, 1]))),
                    refused + r"an atom cache reference, and no atom cache "
                    r"was negotiated: connection closed$")
        deep = bytes([104, 1]) * 100000 + bytes([106])
        self.authed("a REG_SEND to echo of a term nested 100,000 deep "
                    "(SMALL_TUPLE_EXT of arity 1, %d bytes)" % len(deep),
                    lambda s, p: s.sendall(reg_send(p, "echo", deep)),
                    refused + r"a term nested too deep: connection closed$")
        self.authed("a 4-byte length of 0xffffffff, no body",
                    lambda s, p: s.sendall(b"\xff\xff\xff\xff"),
                    r"actors: dist: node {peer}: a frame of 4294967295 "
                    r"bytes, over the bound of %d: connection closed$" %
                    CONN_FRAME_MAX)
        self.authed("a 4-byte length of ACT__CONN_FRAME_MAX + 1 (%d), no "
                    "body" % (CONN_FRAME_MAX + 1),
                    lambda s, p: s.sendall(struct.pack(">I",
                                                       CONN_FRAME_MAX + 1)),
                    r"actors: dist: node {peer}: a frame of %d bytes, "
                    r"over the bound of %d: connection closed$" %
                    (CONN_FRAME_MAX + 1, CONN_FRAME_MAX))

        def half(s, p):
            s.sendall(reg_send(p, "echo", user_msg(1, b"cut"))[:12])
            s.shutdown(socket.SHUT_WR)
        self.authed("half a frame, then a close", half,
                    r"actors: dist: node {peer} down: it closed the "
                    r"connection$")

    def within(self):
        """A length the bound takes, and no body: the node waits for it
        (and holds no memory for it) until the close."""

        def big(s, p):
            s.sendall(struct.pack(">I", 64 << 20) + b"p" + bytes(1023))
            s.shutdown(socket.SHUT_WR)
        self.authed("a 4-byte length of 64 MiB (within the bound), 1 KiB of "
                    "its body, then a close", big,
                    r"actors: dist: node {peer} down: it closed the "
                    r"connection$")


def pieces(run, seed):
    """The frames of 120 messages, as one stream cut at random places;
    echo's answers read meanwhile (a thread), each compared whole."""
    rng = random.Random(seed)
    sizes = [0, 1, 100, 3000, 16383, 16384, 65531, 65536, 65540, 70000,
             131072, 204800]
    msgs = [bytes(rng.getrandbits(8) for _ in range(16)) +
            bytes((i + j) % 251 for j in range(rng.choice(sizes)))
            for i in range(120)]
    what = ("120 messages of 0 to 200 KiB to echo, their frames cut into "
            "pieces of 1 to 9,000 bytes (seed %d)" % seed)
    peer = run.name()
    got, errors = [], []
    try:
        s = socket.create_connection(("127.0.0.1", run.port), LIMIT)
    except OSError as e:
        run.say(False, what, "no connection to the node: %s" % e)
        return
    with s:
        try:
            authenticate(s, peer, run.cookie)
            round_trip(s, peer, b"pieces")
        except (Fail, OSError) as e:
            run.say(False, what, "no connection up: %s" % e)
            return

        def reader():
            try:
                while len(got) < len(msgs):
                    n = struct.unpack(">I", recv_exact(s, 4))[0]
                    if n:
                        got.append(recv_exact(s, n))
            except (Fail, OSError) as e:
                errors.append(str(e))
        t = threading.Thread(target=reader)
        t.start()
        stream = b"".join(reg_send(peer, "echo", user_msg(2, m))
                          for m in msgs)
        at = 0
        try:
            while at < len(stream):
                k = rng.randint(1, 9000)
                s.sendall(stream[at:at + k])
                at += k
                if rng.random() < 0.1:
                    time.sleep(0.002)
        except OSError as e:
            errors.append("sending: %s" % e)
        t.join(LIMIT * 4)
    bad = [i for i, m in enumerate(msgs)
           if i >= len(got) or not got[i].endswith(b"\x83" +
                                                   user_msg(2, m))]
    run.say(not errors and not bad and alive(run.pid), what,
            "%d answers of %d, %d wrong or missing (first: %s)%s" % (
                len(got), len(msgs), len(bad), bad[0] if bad else "none",
                "; " + "; ".join(errors) if errors else ""))


def flood(run, n):
    """n send_names of distinct names with a wrong cookie, 32 at a time
    (below the 64 handshakes the node takes at once): each is refused
    and closed, and the node lives."""
    statuses, open_left, lock = {}, [0], threading.Lock()

    def one(i):
        name = "hf%d@%s" % (i, run.host)
        with socket.create_connection(("127.0.0.1", run.port), LIMIT) as s:
            try:
                st, _ = handshake(s, name, "wrong" + run.cookie)
                st = "status %s, a wrong digest sent" % st
            except Fail as e:
                st = str(e)
            how, _ = wait_close(s)
        with lock:
            statuses[st] = statuses.get(st, 0) + 1
            open_left[0] += how is None

    def worker(k):
        for i in range(k, n, 32):
            try:
                one(i)
            except OSError as e:
                with lock:
                    statuses[str(e)] = statuses.get(str(e), 0) + 1

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(32)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    lives = alive(run.pid)
    said = ", ".join("%d: %s" % (v, k) for k, v in sorted(statuses.items()))
    run.say(not open_left[0] and lives,
            "%d send_names of distinct names with a wrong cookie" % n,
            "%s; %d left open past %d s; node %s" % (
                said, open_left[0], LIMIT, "alive" if lives else "GONE"))


def main():
    argv, mode, n = sys.argv[1:], sys.argv[1:2], 0
    if mode == ["flood"] and len(argv) > 1:
        n, argv = int(argv[1]), argv[2:]
    else:
        argv = argv[1:]
    if mode not in (["refuse"], ["within"], ["pieces"], ["flood"]) or \
            len(argv) != 7:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    try:
        run = Run(argv)
    except (Fail, OSError) as e:
        print("FAIL the node's port from epmd: %s" % e, flush=True)
        return 1
    if mode == ["refuse"]:
        run.unauthenticated()
        run.authenticated()
    elif mode == ["within"]:
        run.prefix = "hw"
        run.within()
    elif mode == ["pieces"]:
        run.prefix = "hc"
        pieces(run, int(os.environ.get("PIECES_SEED") or
                        random.randrange(1 << 30)))
    else:
        flood(run, n)
    print("done %d cases, %d failed" % (run.cases, run.failed), flush=True)
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
