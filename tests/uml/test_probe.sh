#!/usr/bin/env bash
# tests/uml/test_probe.sh: the latency prober on netem paths inside User-Mode Linux (the host
# kernel has no netem): RTT against ping's at 20 ms, loss at 5%, reordering and duplicates.
# Run from the repo root as root.
. "$(dirname "$0")/host.sh"
uml_suite "prober in UML" 200 probe.sh
