#!/bin/sh
# Install, build and run the main job: `actors demo`.
set -eu
cd "$(dirname "$0")/.."
scripts/build.sh release
exec build/release/tools/actors demo
