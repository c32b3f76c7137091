#!/bin/sh
# make check: every identifier and path the docs name is in the tree
# (scripts/check-doc-names.py).
exec python3 "${srcdir:-.}/scripts/check-doc-names.py"
