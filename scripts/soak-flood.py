#!/usr/bin/env python3
"""soak-flood.py - one flood of scripts/soak.sh: a client that pipelines
GETs of a big value into kv_server and never reads a reply.

  soak-flood.py PORT KEY reset SECONDS
  soak-flood.py PORT KEY stall SECONDS

It connects and writes "GET KEY" (KEY holds a value of tens of KiB) as
fast as the server takes them, for SECONDS, never reading: the server's
replies fill both socket buffers and its connection waits in a send
that takes nothing (what bounds its memory: README.md "What bounds
memory"). Then:

  reset  the client goes at once with a TCP reset (SO_LINGER 0): the
         connection process's send fails, it ends;
  stall  the client stays, still not reading, past kv_server's 30 s
         limit on a send that takes nothing, then reads what is left to
         its end: the server must have closed the connection (the
         send's timer fired).

Prints one line: the mode, the commands written, and for stall whether
the server closed the connection ("closed") or not ("open"). Exits 0,
or 1 when the server could not be reached.
"""
import socket
import struct
import sys
import time

STALL_S = 30  # kv_server's SEND_STALL_NS (examples/kv/kv_server.h)


def main():
    if len(sys.argv) != 5 or sys.argv[3] not in ("reset", "stall"):
        sys.stderr.write("usage: soak-flood.py PORT KEY reset|stall "
                         "SECONDS\n")
        return 2
    port, key, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    secs = float(sys.argv[4])
    cmd = ("*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(key), key)).encode()
    chunk = cmd * 256
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError as e:
        print("flood %s: no connection: %s" % (mode, e))
        return 1
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
    sent = 0
    end = time.monotonic() + secs
    s.settimeout(0.2)
    while time.monotonic() < end:
        try:
            sent += s.send(chunk)
        except socket.timeout:
            continue  # the server stopped reading: it waits on us
        except OSError:
            break  # closed by the server
    n = sent // len(cmd)
    if mode == "reset":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        s.close()
        print("flood reset: %d commands" % n)
        return 0
    time.sleep(max(0.0, STALL_S + 5 - secs))
    state = "open"  # still sending, or silent, after 10 s of reading
    s.settimeout(1)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            if not s.recv(1 << 20):
                state = "closed"
                break
        except socket.timeout:
            continue
        except OSError:
            state = "closed"  # a reset: it closed with our GETs unread
            break
    s.close()
    print("flood stall: %d commands, %s" % (n, state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
