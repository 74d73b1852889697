#!/bin/bash
# BPF enforcement (issue 4): code generation verdict tests with
# BPF_PROG_TEST_RUN (plain and ASan/UBSan builds), then real traffic between
# network namespaces through the helper's BPF programs.
set -u
cd "$(dirname "$0")/../.."
rc=0
for bin in build/selftests/test_codegen build/selftests-asan/test_codegen; do
	echo "# codegen: $bin"
	if [ ! -x "$bin" ]; then
		echo "not ok 1 - $bin missing (run make selftests)"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
		rc=1
		continue
	fi
	ASAN_OPTIONS=halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" || rc=1
done
# The traffic test drives stock iptables-legacy through the shim.
[ -x build/shim/bpfilter-hostd ] || make -s shim >/dev/null
bash tools/testing/selftests/bpfilter/bpf_traffic.sh || rc=1
exit $rc
