#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's two commands, runnable by bash alone on a machine that has
# nothing but the Debian base system and this checkout (no make yet):
#   bash scripts/run.sh demo    the main job: build, boot the 6.12 VM kernel
#                               with bpfilter.ko, run a real iptables session
#   bash scripts/run.sh check   the whole test suite, "N passed, N failed" last
# Both install what they need first (scripts/setup.sh), then build with make.
# `make demo` and `make check` run the same.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

case "${1:-}" in
demo)
	bash scripts/setup.sh || exit 1
	make all || exit 1
	exec bash scripts/demo.sh
	;;
check)
	bash scripts/setup.sh || exit 1
	make all selftests shim || exit 1
	exec bash scripts/check.sh
	;;
*)
	echo "usage: bash scripts/run.sh demo|check" >&2
	exit 2
	;;
esac
