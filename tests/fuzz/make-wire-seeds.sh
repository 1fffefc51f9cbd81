#!/usr/bin/env bash
# tests/fuzz/make-wire-seeds.sh: regenerate fuzz_wire's seeds with the unit test's own
# snapshots (build/tests/test_wire --seeds): a snapshot with every field set, a small one, the
# settings, a history frame, three frames read a byte at a time, and a frame of version 2.
# usage: tests/fuzz/make-wire-seeds.sh [OUT_DIR]   (default tests/fuzz/corpus/wire)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-tests/fuzz/corpus/wire}
make -s build/tests/test_wire
mkdir -p "$out"
rm -f "$out"/seed-*
build/tests/test_wire --seeds "$out"
ls -l "$out"
