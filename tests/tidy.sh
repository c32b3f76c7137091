#!/bin/sh
# make check: lib/'s functions within .clang-tidy's size limit
# (scripts/check-tidy.sh, with this build's config.h).
exec "${srcdir:-.}/scripts/check-tidy.sh" .
