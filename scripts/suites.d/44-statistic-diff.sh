#!/bin/bash
# Differential -m statistic and -m cpu (issue 12): nth counting, random at
# probabilities 0 and 1, cpu, through ip_tables and through bpfilter on this
# host with pinned traffic; every rule's counters must be equal, also after
# a replace. See tools/testing/selftests/bpfilter/statistic_diff.sh.
set -u
cd "$(dirname "$0")/../.."
[ -x build/shim/bpfilter-hostd ] && [ -f build/shim/bpfilter_shim.so ] || make -s shim >/dev/null
timeout -k 10 300 bash tools/testing/selftests/bpfilter/statistic_diff.sh
