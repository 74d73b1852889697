#!/bin/bash
# Run a command with stock iptables-legacy or ip6tables-legacy talking to a
# fresh bpfilter helper (through bpfilter-hostd and the LD_PRELOAD shim)
# instead of the kernel:
#
#   with-hostd.sh [-H HELPER] [-l LOG] -- sh -c 'iptables-legacy -A INPUT -j DROP; iptables-legacy -S'
#
# The daemon lives as long as the command; its socket is a temp file. Build
# first with `make shim helper`. Exit status is the command's.
set -eu
root=$(cd "$(dirname "$0")/../../../../.." && pwd)
hostd_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-H|-l) hostd_args+=("$1" "$2"); shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-H HELPER] [-l LOG] -- COMMAND..." >&2; exit 2; }

sock=$(mktemp -u /tmp/bpfilter-hostd.XXXXXX.sock)
pid=$("$root/build/shim/bpfilter-hostd" -s "$sock" "${hostd_args[@]}" -b)
trap 'kill "$pid" 2>/dev/null || true' EXIT
rc=0
LD_PRELOAD="$root/build/shim/bpfilter_shim.so" BPFILTER_HOSTD="$sock" "$@" || rc=$?
exit $rc
