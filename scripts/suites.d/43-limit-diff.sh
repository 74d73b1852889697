#!/bin/bash
# Differential -m limit (issue 11): the same limit rules and bursts of
# packets through ip_tables (xt_limit) and through bpfilter's BPF token
# buckets on this host; every rule's counters must be equal, a replace
# refills the buckets. See tools/testing/selftests/bpfilter/limit_diff.sh.
set -u
cd "$(dirname "$0")/../.."
[ -x build/shim/bpfilter-hostd ] && [ -f build/shim/bpfilter_shim.so ] || make -s shim >/dev/null
timeout -k 10 120 bash tools/testing/selftests/bpfilter/limit_diff.sh
