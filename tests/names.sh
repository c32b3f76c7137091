#!/bin/sh
# make check: lib/'s functions are named for their file
# (scripts/check-names.py).
exec python3 "${srcdir:-.}/scripts/check-names.py"
