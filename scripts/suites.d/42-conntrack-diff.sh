#!/bin/bash
# Differential conntrack/state matching (issue 11): one counting rule per
# option and inversion of -m conntrack and -m state, the same traffic through
# ip_tables (xt_conntrack) and through bpfilter's BPF programs in namespaces
# of this host; every rule's counters must be equal. See
# tools/testing/selftests/bpfilter/ct_diff.sh.
set -u
cd "$(dirname "$0")/../.."
[ -x build/shim/bpfilter-hostd ] && [ -f build/shim/bpfilter_shim.so ] || make -s shim >/dev/null
timeout -k 10 300 bash tools/testing/selftests/bpfilter/ct_diff.sh
