#!/bin/bash
# Differential -m pkttype, devgroup, realm, mac and connmark (issue 12):
# the same traffic (unicast, broadcast, multicast, looped back, over lo)
# through ip_tables and through bpfilter on this host; every rule's
# counters must be equal. See tools/testing/selftests/bpfilter/meta_diff.sh.
set -u
cd "$(dirname "$0")/../.."
[ -x build/shim/bpfilter-hostd ] && [ -f build/shim/bpfilter_shim.so ] || make -s shim >/dev/null
timeout -k 10 300 bash tools/testing/selftests/bpfilter/meta_diff.sh
