#!/bin/sh
# make check: every non-relaxed atomic in lib/ names its pair or why
# (scripts/check-atomics.py).
exec python3 "${srcdir:-.}/scripts/check-atomics.py"
