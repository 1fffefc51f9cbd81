#!/usr/bin/env bash
# tests/uml/test_containers.sh: a container shaped with the default child, fq_codel, which the
# host kernel lacks: inside User-Mode Linux (tests/uml/guest/containers.sh does the work).
# Run from the repo root as root.
. "$(dirname "$0")/host.sh"
uml_suite "containers in UML" 150 containers.sh
