#!/bin/sh
# Prints docs/config.md's reference tables and rule list as the loader's key
# and rule tables (src/load/config.c) render them, for pasting into the doc; the
# check_config_doc test fails until the doc matches. Usage:
#   sh scripts/gen-config-doc.sh [BUILD_DIR]   (default: build)
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
cmake -S . -B "$build" >/dev/null
cmake --build "$build" --target check_config_doc >/dev/null
exec "./$build/check_config_doc" --print
