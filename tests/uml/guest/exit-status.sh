#!/bin/bash
# tests/uml/guest/exit-status.sh MARKER STATUS: guest side of test_harness.sh (a); proves
# stdout, stderr and the exit status of a guest script reach the host.
echo "stdout $1 $(uname -r)"
echo "stderr $1" >&2
exit "${2:-3}"
