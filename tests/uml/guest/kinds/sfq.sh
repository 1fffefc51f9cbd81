# tests/uml/guest/kinds/sfq.sh: sfq for tests/uml/guest/leaf-kind.sh (its variables there).
# sfq's one extended statistic (allot) comes per flow, not per qdisc: no checks of its own.
# shellcheck shell=bash disable=SC2034
kind_child() { echo "limit = $1; perturb = \"10s\"; quantum = 1514; divisor = 2048; flows = 256; depth = 64; headdrop = true;"; }
KIND_LIMITS="1000 2000"
KIND_INGRESS="divisor = 512;"
KIND_TC="limit 1000 quantum 1514 divisor 2048 flows 256 depth 64 headdrop perturb 10"
KIND_Q_TUNED='.options.limit == 1000 and .options.divisor == 2048 and .options.depth == 64'
KIND_Q_PLAIN='.options.divisor == 1024'
KIND_Q_INGRESS='.options.divisor == 512'
