#!/bin/sh
# Install, build and run the main job: `actors demo`.
set -eu
cd "$(dirname "$0")/.."
scripts/build.sh
exec ./tools/actors demo
