#!/usr/bin/env bash
# tests/uml/test_gatewayd.sh: gatewayd's fq_codel, cake, sfq and pie trees and their effect
# under load, inside User-Mode Linux (the host kernel has none of them). Run from the repo root
# as root.
. "$(dirname "$0")/host.sh"
uml_suite "gatewayd in UML" 240 gatewayd-kinds.sh "leaf-kind.sh sfq" "leaf-kind.sh pie"
