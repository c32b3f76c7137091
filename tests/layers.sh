#!/bin/sh
# make check: lib/'s layers, the includes and this build's objects
# (scripts/check-layers.sh; doc/design/overview.md "Layers").
exec "${srcdir:-.}/scripts/check-layers.sh" .
