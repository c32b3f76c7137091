#!/usr/bin/env python3
# check-doc-names.py - what the docs name exists (README.md,
# CONTRIBUTING.md, doc/*.md, doc/design/*.md): every
# identifier of the runtime it writes (act__*, ACT_*, ACTORS_*; a
# trailing * or _ is a prefix, `act__timer_*`) is a word of the sources,
# and every path into the tree (lib/..., tools/..., bench/fanin for the
# program bench/fanin.c, lib/reactor/io.{h,c} for both files) is a file
# or folder of it. A design note may tell what a function was before a
# change, as long as it still exists; a renamed or moved one fails here.
# `make check` runs it (tests/docnames.sh); prints FILE:LINE: NAME for
# each name that is not there and exits 1 if there is one.
import glob
import os
import re
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

SOURCES = ("lib", "include", "tools", "tests", "bench", "examples",
           "stress", "scripts", "model", "m4")
SUFFIXES = (".c", ".h", ".S", ".sh", ".py", ".am", ".ac", ".in", ".m4",
            ".go", ".erl")
DOCS = [d for d in ("README.md", "CONTRIBUTING.md") if os.path.exists(d)]
IDENT = re.compile(r"\b(act__[a-z0-9_]+\*?|ACT_[A-Z0-9_]+\*?|"
                   r"ACTORS_[A-Z0-9_]+\*?)")
PATH = re.compile(r"(?<![\w/.-])((?:lib|tools|tests|scripts|examples|bench|include|"
                  r"doc|stress|model|m4)/[A-Za-z0-9_./{},<>*-]+)")


def source_words():
    words = set()
    files = ["configure.ac", "Makefile.am"]
    for top in SOURCES:
        for root, dirs, names in os.walk(top):
            files += [os.path.join(root, n) for n in names
                      if n.endswith(SUFFIXES)]
    for path in files:
        with open(path, errors="replace") as fh:
            words.update(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", fh.read()))
    return words


def expand(path):
    # lib/reactor/io.{h,c}: both files
    m = re.match(r"(.*)\{([^}]*)\}(.*)$", path)
    if not m:
        return [path]
    return [m.group(1) + alt + m.group(3) for alt in m.group(2).split(",")]


def programs():
    # what the automake files build: bench/echo, tests/test_mailbox
    names = set()
    for am in ["Makefile.am"] + glob.glob("*/*.am") + glob.glob("*/*/*.am"):
        with open(am) as fh:
            names.update(re.findall(r"\b(?:bench|tests|stress|tools|examples)"
                                    r"/[A-Za-z0-9_/]+", fh.read()))
    return names


def path_exists(path, built):
    # a program is named by its source (bench/fanin is bench/fanin.c) or
    # by the automake file that builds it (bench/echo)
    return path in built or any(os.path.exists(path + s)
                                for s in ("", ".c", ".sh", ".py"))


def main():
    words = source_words()
    built = programs()
    bad = []
    for md in DOCS + sorted(glob.glob("doc/*.md") + glob.glob("doc/design/*.md")):
        with open(md) as fh:
            lines = fh.read().split("\n")
        for n, line in enumerate(lines, 1):
            for tok in IDENT.findall(line):
                if tok.endswith(("*", "_")):
                    prefix = tok.rstrip("*")
                    if not any(w.startswith(prefix) and w != prefix
                               for w in words):
                        bad.append((md, n, tok))
                elif tok not in words:
                    bad.append((md, n, tok))
            for path in PATH.findall(line):
                path = path.rstrip(".,:;")
                if "<" in path or "*" in path or "/.libs/" in path:
                    continue  # a pattern (lib/arch/<arch>/ctx.S), a build's
                for p in expand(path):
                    if not path_exists(p, built):
                        bad.append((md, n, p))
    for b in bad:
        print("%s:%d: %s is not in the tree" % b)
    if bad:
        print("check-doc-names: %d name(s) in the docs not in the tree" %
              len(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
