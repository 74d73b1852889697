#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo, inside the 6.12 VM: load bpfilter.ko, run a short iptables-legacy
# session against it and show what the kernel and bpfilter report.
# Exits non-zero if any step failed.
IPT=iptables-legacy
failed=0

# step CMD...: show the command like a shell session, run it, note failures.
step()
{
	echo
	echo "root@bpfilter-vm:~# $*"
	sh -c "$*" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "# FAILED (exit code $rc): $*"
		failed=$((failed + 1))
	fi
}

echo "# ---- bpfilter demo on $(uname -r) ----"
step "modprobe bpfilter"
step "grep -E '^(bpfilter|ip_tables) ' /proc/modules"
step "dmesg | grep bpfilter"
step "cat /proc/net/ip_tables_names"
helper=$(cat /sys/module/bpfilter/parameters/helper_pid 2>/dev/null)
step "echo helper pid $helper; ls -l /proc/$helper/exe; cat /proc/$helper/status | grep -E '^(Name|State|VmRSS)'"

echo
echo "# ---- a stock iptables-legacy session ----"
step "$IPT -L -n -v"
step "$IPT -N web"
step "$IPT -A INPUT -i lo -j ACCEPT"
step "$IPT -A INPUT -p tcp --dport 22 -j ACCEPT"
step "$IPT -A INPUT -p tcp -m tcp --dport 80:443 -j web"
step "$IPT -I INPUT 2 -p icmp --icmp-type echo-request -j ACCEPT"
step "$IPT -A web -s 203.0.113.0/24 -j DROP"
step "$IPT -A web -j ACCEPT"
step "$IPT -P INPUT DROP"
step "ping -c 3 -W 1 127.0.0.1 > /dev/null; $IPT -L -n -v --line-numbers"
step "$IPT -S"
step "iptables-legacy-save -c | tee /tmp/rules.v4"
step "$IPT -F && $IPT -X && $IPT -P INPUT ACCEPT && $IPT -S"
step "iptables-legacy-restore -c < /tmp/rules.v4 && $IPT -S"
step "$IPT -A web -j nosuchchain; test \$? -eq 2"

echo
echo "# ---- packets: bpfilter's BPF programs enforce the table ----"
step "$IPT -I INPUT 1 -i lo -p icmp -s 127.0.0.1 -j DROP"
step "! ping -c 2 -W 1 127.0.0.1"
step "$IPT -L INPUT -n -v --line-numbers | head -n 3"
step "$IPT -D INPUT 1 && ping -c 1 -W 1 127.0.0.1"

echo
echo "# ---- what the kernel and bpfilter report ----"
step "dmesg | grep bpfilter | tail -n 8"
step "bpftool link show 2>/dev/null | head -n 20; true"
step "$IPT -F && $IPT -X && $IPT -P INPUT ACCEPT"
step "rmmod bpfilter && ! grep -q '^bpfilter ' /proc/modules && dmesg | grep bpfilter | tail -n 2"

echo
if [ $failed -eq 0 ]; then
	echo "# demo: every step worked"
else
	echo "# demo: $failed step(s) failed"
fi
[ $failed -eq 0 ]
