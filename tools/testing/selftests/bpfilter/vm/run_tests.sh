#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side runner: load the backend (BACKEND=bpfilter: bpfilter.ko;
# BACKEND=ip_tables: the stock modules, the reference), run every test script
# (or those in $TESTS) and print one TAP stream ending with its plan.
# A script that exits before done_testing counts as a failure.
DIR=$(dirname "$0")
export BACKEND=${BACKEND:-bpfilter}
export TAP_DIR=${TAP_DIR:-/tmp/tap}
rm -rf "$TAP_DIR"
mkdir -p "$TAP_DIR"
SCRIPT=run_tests.sh
. "$DIR/lib.sh"

echo "TAP version 13"
echo "# backend: $BACKEND${NOBPF:+ (NOBPF: this kernel lacks BPF netfilter programs)}"

load_backend()
{
	case "$BACKEND" in
	ip_tables)
		modprobe iptable_filter && modprobe xt_tcpudp
		;;
	bpfilter)
		modprobe bpfilter
		;;
	*)
		echo "unknown BACKEND $BACKEND"
		return 1
		;;
	esac
}

OUT=$(load_backend 2>&1)
if [ $? -eq 0 ]; then
	pass "load backend $BACKEND"
else
	fail "load backend $BACKEND"
	diag "$OUT"
fi
# x_tables instantiates a netns' filter table on its first use, and so does
# bpfilter: list it after one command.
run $IPT -S
ok_if "/proc/net/ip_tables_names lists filter" grep -qx filter /proc/net/ip_tables_names
if [ "$BACKEND" = bpfilter ]; then
	ok_if "ip_tables.ko is not loaded" sh -c '! grep -q "^ip_tables " /proc/modules'
	ok_if "bpfilter.ko is loaded" grep -q "^bpfilter " /proc/modules
	ok_if "the helper runs after load" test -n "$(helper_pids)"
	diag "$(grep -E '^bpfilter ' /proc/modules)" "helper pid(s): $(helper_pids)"
fi

all="test_basic.sh test_save_restore.sh test_errors.sh test_privs.sh test_netns.sh
test_bpf_traffic.sh test_matches.sh test_mark.sh test_conntrack.sh test_reject.sh test_log.sh test_nflog.sh test_recent.sh test_addrtype.sh test_owner.sh test_set.sh test_hashlimit.sh test_connlimit.sh test_string.sh test_time.sh test_physdev.sh test_cgroup.sh test_server_firewall.sh test_concurrency.sh test_signals.sh test_limits.sh test_helper_kill.sh test_crash_traffic.sh test_verifier_fault.sh test_sockopt_fuzz.sh test_ip6.sh test_ip6_stateful.sh test_module_cycle.sh
test_raw.sh test_nat.sh test_kube_proxy.sh test_docker.sh test_nat_diff.sh"
# Without BPF netfilter programs bpfilter refuses every table it cannot
# enforce: test_nobpf.sh covers reads, refusals, errors, privileges,
# namespaces, a killed helper and readers; test_module_cycle.sh the reloads.
[ -n "${NOBPF:-}" ] && all="test_nobpf.sh test_module_cycle.sh"
for t in ${TESTS:-$all}; do
	t=${t%.sh}.sh
	echo "# === $t"
	start=$(date +%s)
	sh "$DIR/$t"
	rc=$?
	if [ ! -f "$TAP_DIR/done.$t" ]; then
		fail "$t stopped before the end (exit code $rc)"
	fi
	echo "# === $t: $(( $(date +%s) - start ))s"
done

if [ "$BACKEND" = bpfilter ]; then
	ok_if "ip_tables.ko was never loaded" sh -c '! grep -q "^ip_tables " /proc/modules'
fi
echo "1..$(cat "$TAP_DIR/count")"
! grep -q . "$TAP_DIR/failed" 2>/dev/null
