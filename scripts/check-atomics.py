#!/usr/bin/env python3
# check-atomics.py - every atomic operation in lib/ that is not relaxed
# says why it needs its order: a comment that starts with the order's
# name and a colon ("acquire: pairs with the release store in ...",
# "seq_cst: the load half of the Dekker pair with ..."), in the comment
# block just above the statement (no blank line between) or inside it,
# followed by what it pairs with ("pairs with", "pair") or its reason
# (at least four words). One comment covers the non-relaxed operations
# of the same order in the statements that follow it up to the next
# blank line, closing brace or comment.
#
# Non-relaxed: an *_explicit call with memory_order_acquire, _release,
# _acq_rel or _seq_cst, and the calls without _explicit (seq_cst). The
# memory_order_consume of nothing; atomic_init, atomic_thread_fence and
# atomic_signal_fence are named as their argument says.
#
# Also: no spin loop of its own. A `while (atomic_flag_test_and_set...`
# or `while (atomic_exchange...` loop is a lock, and lib/base/spin.h
# has the one lock (act__spin_lock); a file that needs another says why
# in a comment that contains "own spin loop:".
#
# lib/base/sysatomic.h's macros are the operations themselves, not uses.
#
# `make check` runs it (tests/tests.am). Prints FILE:LINE: what for
# each, and exits 1 if there is one.
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)

ORDERS = ("acquire", "release", "acq_rel", "seq_cst")
EXPLICIT = re.compile(r"\batomic_\w+_explicit\s*\(")
IMPLICIT = re.compile(
    r"\batomic_(load|store|exchange|fetch_add|fetch_sub|fetch_or|"
    r"fetch_and|fetch_xor|compare_exchange_strong|compare_exchange_weak|"
    r"flag_test_and_set|flag_clear)\s*\(")
FENCE = re.compile(r"\batomic_(thread|signal)_fence\s*\(")
ORDER = re.compile(r"memory_order_(\w+)")
SPIN = re.compile(r"\bwhile\s*\(\s*!?\s*atomic_(flag_test_and_set|exchange)")


def comment_text(lines, i):
    """The comment block that ends on line i-1 (no blank line between)."""
    j = i - 1
    if j < 0 or not lines[j].rstrip().endswith("*/"):
        return None
    k = j
    while k >= 0 and "/*" not in lines[k]:
        k -= 1
    if k < 0:
        return None
    return " ".join(l.strip(" \t/*") for l in lines[k:j + 1])


def stmt_start(lines, i):
    """The line where the statement holding line i starts."""
    k = i
    while k > 0:
        prev = lines[k - 1].rstrip()
        if (not prev or prev.endswith((";", "{", "}", "*/")) or
                prev.lstrip().startswith("#") or prev.endswith(":")):
            break
        k -= 1
    return k


def explains(text, order):
    """The comment names the order and its pair, or gives its reason."""
    if not text or not re.search(r"\b%s\b" % order, text):
        return False
    if re.search(r"\bpair", text):
        return True
    m = re.search(r"\b%s\b[^:]*?:(.*)" % order, text)
    return bool(m) and len(m.group(1).split()) >= 4


def check(path, bad):
    with open(path) as f:
        lines = f.read().split("\n")
    cover = {}  # order -> True while a comment covers the block
    # spin.c is the one lock's own
    own_spin = (path == os.path.join("lib", "base", "spin.c") or
                any("own spin loop:" in l for l in lines))
    i = 0
    pending = 0  # explicit calls whose order is still to come
    in_define = False  # in a #define's continuation lines
    for i, line in enumerate(lines):
        s = line.strip()
        # lib/base/sysatomic.h defines the operations themselves (the
        # systematic build's wrappers): their definitions are no use
        # of an order; a use of one of its macros is checked as any
        if path.endswith("sysatomic.h"):
            if in_define or s.startswith("#define"):
                in_define = s.endswith("\\")
                continue
        if not s or re.match(r"^};?$", s):
            cover = {}
        if s.startswith("/*") or s.startswith("*") or s.endswith("*/"):
            text = None
            if s.endswith("*/"):
                text = comment_text(lines, i + 1)
            cover = {}
            if text:
                for o in ORDERS:
                    if explains(text, o):
                        cover[o] = True
                # a CAS's acq_rel covers its failure order, acquire
                if cover.get("acq_rel"):
                    cover["acquire"] = cover["release"] = True
            continue
        if s.startswith("#") or s.startswith("//"):
            continue
        code = re.sub(r"/\*.*?\*/", "", line)
        inline = re.findall(r"/\*(.*?)\*/", line)
        if SPIN.search(code) and not own_spin:
            bad.append("%s:%d: a spin loop of its own: use act__spin_lock "
                       "(base/spin.h) or say why (\"own spin loop:\")"
                       % (path, i + 1))
        orders = []
        n_explicit = len(EXPLICIT.findall(code))
        for m in IMPLICIT.finditer(code):
            orders.append("seq_cst")
        pending += n_explicit
        for m in ORDER.finditer(code):
            if pending:
                pending -= 1
            o = m.group(1)
            if o in ORDERS:
                orders.append(o)
        for m in FENCE.finditer(code):
            pass  # the order is on the line, counted above
        for o in orders:
            if cover.get(o):
                continue
            if any(explains(t, o) for t in inline):
                continue
            # the comment above the statement's first line
            k = stmt_start(lines, i)
            text = comment_text(lines, k) if k != i else None
            if explains(text, o) or (o == "acquire" and
                                     explains(text, "acq_rel")):
                cover[o] = True
                continue
            bad.append("%s:%d: %s without a comment naming its pair or "
                       "why (\"%s: pairs with ...\")" % (path, i + 1, o, o))


def main():
    bad = []
    for dirpath, dirs, files in os.walk("lib"):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                check(os.path.join(dirpath, name), bad)
    for b in bad:
        print(b)
    if bad:
        print("check-atomics: %d operation(s) without their reason" % len(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
