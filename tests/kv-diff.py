#!/usr/bin/env python3
"""The differential test of the kv example against redis-server: being written."""
