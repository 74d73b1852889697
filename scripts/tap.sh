# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell suites of scripts/suites.d: kselftest-style results.
#   ok RC DESCRIPTION   "ok N - ..." if RC is 0, else "not ok N - ..."
#   tap_totals          the "# Totals:" line scripts/check.sh reads; status 0 iff no failure
pass=0
fail=0
n=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"; pass=$((pass + 1))
	else
		echo "not ok $n - $2"; fail=$((fail + 1))
	fi
}

tap_totals() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	[ "$fail" -eq 0 ]
}
