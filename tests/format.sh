#!/bin/sh
# make check: the C files are as the pinned clang-format writes them
# (scripts/check-format.sh, .clang-format).
exec "${srcdir:-.}/scripts/check-format.sh"
