#!/usr/bin/env bash
# tests/uml/test_autorate.sh: autorate moves cake's bandwidth and tbf's rate over an fq_codel
# child in place, egress and ingress, under real traffic inside User-Mode Linux (the host
# kernel has neither kind; tests/netns/test_autorate.sh covers htb). Run from the repo root
# as root.
. "$(dirname "$0")/host.sh"
uml_suite "autorate in UML" 180 autorate.sh
