#!/bin/sh
# tests/kv-diff.py against redis-server: being written.
echo "kv-diff.sh: not written yet: skipped"
exit 77
