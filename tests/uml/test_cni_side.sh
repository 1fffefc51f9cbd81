#!/usr/bin/env bash
# tests/uml/test_cni_side.sh: the reference CNI bandwidth plugin and gatewayd-cni side by side at
# 20 Mbit/s each way, 4 TCP flows in and out, pinged throughout: gatewayd-cni's default queue
# is fq_codel, which the host kernel lacks, so inside User-Mode Linux
# (tests/uml/guest/cni-side.sh does the work; tests/bench/cni-side.sh is its longer run).
# Run from the repo root as root.
. "$(dirname "$0")/host.sh"
uml_suite "CNI plugins side by side in UML" 300 "cni-side.sh 5"
