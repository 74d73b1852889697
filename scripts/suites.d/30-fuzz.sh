#!/bin/bash
# Fuzz the blob parser and the code generator (fuzz_blob.c: table_from_replace()
# with every checkentry, the GET_ENTRIES round trip, codegen_hook() for each
# built-in chain without loading anything) under ASan/UBSan.
#
# The seed corpus is written by tools/testing/selftests/bpfilter/fuzz_seeds.py
# from its one table of extension payloads: a valid table per extension and
# revision (tcp, udp, icmp, comment, multiport, iprange, mark, length, ttl, tos,
# dscp, ah, esp, conntrack 1/2/3, state, limit, REJECT, LOG, NFLOG; every ext_*.c
# must have a row; IPv6 rows for icmp6 and the extensions ip6_tables shares),
# one with all of them per family, and tables of chains (jump, goto, RETURN,
# also in ip6_tables), folded rule runs and a server ruleset.
#
#   1  every seed, run once with BPFILTER_FUZZ_CHECK=1, is accepted and every
#      chain of it generates; each ext-NAME-rREV-* seed ran NAME/REV's generator,
#      and every revision the helper registers under a seeded name was generated
#   2  $BPFILTER_FUZZ_SECONDS (60) s of fuzzing from those seeds; libFuzzer's
#      first and last coverage lines (cov, ft) and final stats are printed
set -u
cd "$(dirname "$0")/../.."
bin=build/fuzz/fuzz_blob
secs=${BPFILTER_FUZZ_SECONDS:-40}
echo "TAP version 13"
echo "1..2"
if [ ! -x "$bin" ]; then
	echo "not ok 1 fuzz_blob seeds: $bin missing (run make selftests)"
	echo "not ok 2 fuzz_blob: $bin missing (run make selftests)"
	echo "# Totals: pass:0 fail:2 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
pass=0
fail=0

if ! python3 tools/testing/selftests/bpfilter/fuzz_seeds.py "$work/corpus" . \
		> "$work/manifest" 2> "$work/seeds.err"; then
	sed 's/^/# /' "$work/seeds.err"
	echo "not ok 1 fuzz_blob seeds: fuzz_seeds.py failed"
	fail=$((fail + 1))
else
	BPFILTER_FUZZ_CHECK=1 "$bin" "$work"/corpus/* > "$work/check.log" 2>&1
	rc=$?
	nseeds=$(ls "$work/corpus" | wc -l)
	problems=$(awk -v manifest="$work/manifest" '
		/^Running: / { seed = $2; sub(".*/", "", seed); seeds[seed] = 1; next }
		/^fuzz_blob: generated / { ran[seed, $3] = 1; gen[$3] = 1; next }
		/^fuzz_blob: registered / { reg[$3] = 1; next }
		END {
			for (s in seeds) {
				if (s !~ /^ext-/)
					continue
				split(s, p, "-")
				want = p[2] "/" substr(p[3], 2)
				if (!((s, want) in ran))
					print "seed " s " did not run the generator of " want
			}
			while ((getline e < manifest) > 0)
				if (!(e in gen))
					print "no seed ran the generator of " e
			for (e in reg)
				if (!(e in gen))
					print "registered " e " has no seed"
		}' "$work/check.log")
	if [ "$rc" -eq 0 ] && [ -z "$problems" ] &&
	   [ "$(grep -c '^Executed ' "$work/check.log")" -eq "$nseeds" ]; then
		echo "# generators run: $(tr '\n' ' ' < "$work/manifest")"
		echo "ok 1 fuzz_blob seeds: $nseeds tables accepted and generated"
		pass=$((pass + 1))
	else
		echo "$problems" | sed '/^$/d; s/^/# /'
		grep -E "^fuzz_blob: seed|^Running: |ERROR|runtime error" "$work/check.log" |
			tail -n 20 | sed 's/^/# /'
		echo "not ok 1 fuzz_blob seeds: a seed is rejected or misses its generator"
		fail=$((fail + 1))
	fi
fi

"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" > "$work/log" 2>&1
rc=$?
grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)" "$work/log" | sed 's/^/# /'
grep -E "^stat::" "$work/log" | sed 's/^/# /'
if [ "$rc" -eq 0 ] && [ -z "$(ls -A "$work/artifacts")" ]; then
	echo "ok 2 fuzz_blob ${secs}s"
	pass=$((pass + 1))
else
	mkdir -p build/fuzz/crashes
	cp "$work"/artifacts/* build/fuzz/crashes/ 2>/dev/null
	grep -E "ERROR|runtime error|SUMMARY" "$work/log" | head -n 20 | sed 's/^/# /'
	echo "not ok 2 fuzz_blob: crash or sanitizer report (inputs in build/fuzz/crashes)"
	fail=$((fail + 1))
fi
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
