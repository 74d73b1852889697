#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Smoke run of the issue 5 benchmark (tools/bench/bench.sh --smoke): tiny
# rulesets, one short packet-rate run per point. Benchmarks are not tests:
# this only checks that the tool works, i.e. that every backend produced a
# number, bpfilter really filtered the measured path, the BPF cost probes
# got the right verdicts and counts, and the output lines have the format
# issue 5 asks for; for the stateful shape (issue 11) also that conntrack
# was on in every backend's namespace and the measured packets were NEW
# ones that walked past the ESTABLISHED rule to the last one; for IPv6
# (issue 13) the bench6 lines and the same checks; for the control-plane
# benchmark (issue 30, tools/bench/bench_control.sh) one round at 100
# services: every backend timed, its control: line in the format the issue
# asks for. Prints "# Totals: pass:P fail:F".
set -u
cd "$(dirname "$0")/../.."

. scripts/tap.sh

echo "TAP version 13"
if ! make -s bench-tools > build/bench-tools.log 2>&1; then
	cat build/bench-tools.log
	ok 1 "build bench tools"
	tap_totals
	exit 1
fi
ok 0 "build bench tools"

sizes="1 100"
shapes="blocklist portlist mixed stateful"
out=build/bench/smoke.out
timeout 240 bash tools/bench/bench.sh --smoke --sizes "$sizes" --shapes "$shapes" > "$out" 2>&1
rc=$?
sed 's/^/# /' "$out" | grep -v '^# prog:\|^# map:'
ok "$rc" "bench.sh --smoke exits 0"
results=build/bench/run-smoke/results.txt
get() { awk -v s="$1" -v n="$2" -v k="$3" '$1 == s && $2 == n && $3 == k { v = $4 } END { print v }' "$results" 2>/dev/null; }
num='^[0-9]+$'

grep -q '^| shape | rules | no firewall | ip_tables |' "$out"
ok $? "markdown packet-rate table printed"

# measured TAG LINE_PREFIX IPT_KEY S R: the checks both families share, for
# shape S at R rules: the output line, every backend measured, bpfilter
# enforcing the measured path, the BPF_PROG_TEST_RUN probes.
measured() {
	local tag=$1 prefix=$2 ipt=$3 s=$4 r=$5 line missing v k

	line=$(grep "^$prefix: shape=$s rules=$r " "$out")
	[[ "$line" =~ ^$prefix:\ shape=$s\ rules=$r\ bpfilter_pps=[0-9]+\ ${ipt}_pps=[0-9]+\ nft_pps=[0-9]+\ ratio=[0-9]+\.[0-9]+$ ]]
	ok $? "$prefix line format: shape=$s rules=$r"
	missing=
	for k in none_pps iptables_pps nft_pps nftset_pps bpfilter_pps; do
		v=$(get "$s" "$r" "$k")
		[[ "$v" =~ $num ]] && [ "$v" -gt 0 ] || missing="$missing $k=${v:-none}"
	done
	[ -z "$missing" ]
	ok $? "${tag}every backend measured: shape=$s rules=$r${missing:+ (bad:$missing)}"
	[ "$(get "$s" "$r" bpfilter_enforced)" = yes ]
	ok $? "${tag}bpfilter filters the measured path: shape=$s rules=$r"
	[ "$(get "$s" "$r" cost_last_ok)" = ok ] && [ "$(get "$s" "$r" cost_none_ok)" = ok ] &&
		[[ "$(get "$s" "$r" cost_last_ns)" =~ $num ]] && [[ "$(get "$s" "$r" cost_none_ns)" =~ $num ]]
	ok $? "${tag}BPF_PROG_TEST_RUN cost with right verdicts and counts: shape=$s rules=$r"
}

for s in $shapes; do
	for r in $sizes; do
		measured "" bench iptables "$s" "$r"
		missing=
		for k in iptables_restore_s bpfilter_restore_s iptables_append_s bpfilter_append_s helper_hwm_kb prog_insns; do
			[ -n "$(get "$s" "$r" "$k")" ] || { missing="$k"; break; }
		done
		[ -z "$missing" ]
		ok $? "control-plane figures: shape=$s rules=$r${missing:+ (missing $missing)}"
		[ "$s" = stateful ] || continue
		bad=
		for k in none_ct iptables_ct nft_ct nftset_ct bpfilter_ct; do
			[ "$(get "$s" "$r" "$k")" = new ] || bad="$bad $k=$(get "$s" "$r" "$k")"
		done
		[ -z "$bad" ]
		ok $? "conntrack on in every backend, measured flow NEW: shape=$s rules=$r${bad:+ (bad:$bad)}"
		[ "$(get "$s" "$r" iptables_path)" = ok ] && [ "$(get "$s" "$r" bpfilter_path)" = ok ]
		ok $? "measured packets passed the ESTABLISHED rule to the last rule: shape=$s rules=$r"
	done
done

# IPv6 (issue 13): the smoke run measures blocklist and mixed at its largest size.
results=build/bench/run-smoke6/results.txt
for s in blocklist mixed; do
	measured "IPv6: " bench6 ip6tables "$s" "${sizes##* }"
done

# The control plane (issue 30): kube-proxy's filter table, 100 services.
out=build/bench/control-smoke.out
timeout 300 bash tools/bench/bench_control.sh --family 4 --sizes 100 --rounds 1 > "$out" 2>&1
ok $? "bench_control.sh --sizes 100 exits 0"
sed -n 's/^\(control.*\)$/# \1/p' "$out"
f='[0-9]+\.[0-9]+'
grep -Eq "^control: family=4 table=filter services=100 full_ratio=$f delta_ratio=$f iptables_full_s=$f iptables_delta_s=$f bpfilter_full_s=$f bpfilter_delta_s=$f nft_full_s=$f nft_delta_s=$f " "$out"
ok $? "control: line with every backend's full load and partial sync timed"
grep -Eq '^control-mem: family=4 table=filter services=100 hwm_kb=[1-9][0-9]* .* progs=[1-9][0-9]* ' "$out"
ok $? "control-mem: line with the helper's peak RSS and its programs"

tap_totals
