#!/usr/bin/env bash
# tests/uml/test_latency.sh: gatewayd's own latency figures under a saturating load through a
# large fifo, fq_codel and cake at 20 mbit, inside User-Mode Linux (the host kernel has neither
# AQM). Run from the repo root as root. The numbers are printed as "# ..." lines.
. "$(dirname "$0")/host.sh"
uml_suite "latency under load in UML" 150 latency-kinds.sh
