#!/bin/bash
# Fuzz the blob parser (table_from_replace) for 60 s under ASan/UBSan,
# seeded with a few valid tables generated here.
set -u
cd "$(dirname "$0")/../.."
bin=build/fuzz/fuzz_blob
secs=${BPFILTER_FUZZ_SECONDS:-60}
if [ ! -x "$bin" ]; then
	echo "not ok 1 fuzz_blob: $bin missing (run make selftests)"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
python3 - "$work/corpus" <<'PY'
import struct, sys, os
out = sys.argv[1]
def entry(ip=b"\0"*84, matches=b"", target=b""):
    to = 112 + len(matches)
    no = to + len(target)
    return ip + struct.pack("<IHHIQQ", 0, to, no, 0, 0, 0) + matches + target
def ext(name, data, rev=0):
    pad = (-len(data)) % 8
    return struct.pack("<H", 32 + len(data) + pad) + name.encode().ljust(29, b"\0") + bytes([rev]) + data + b"\0" * pad
def std(v): return ext("", struct.pack("<i", v))
def err(n): return ext("ERROR", n.encode().ljust(30, b"\0"))
def ipp(proto, inv=0): return b"\0"*80 + struct.pack("<HBB", proto, 0, inv)
def repl(entries, hooks, n):
    blob = b"".join(entries)
    he = [0]*5; uf = [0]*5
    for h, (e, u) in hooks.items(): he[h] = e; uf[h] = u
    hdr = b"filter".ljust(32, b"\0") + struct.pack("<III", 0x0e, len(entries), len(blob))
    hdr += struct.pack("<5I", *he) + struct.pack("<5I", *uf) + struct.pack("<IQ", n, 0)
    return hdr + blob
pol = [entry(target=std(-2)) for _ in range(3)]
init = repl(pol + [entry(target=err("ERROR"))], {1: (0, 0), 2: (152, 152), 3: (304, 304)}, 4)
open(os.path.join(out, "initial"), "wb").write(init)
tcp = ext("tcp", struct.pack("<HHHHBBBB", 0, 65535, 22, 22, 0, 0, 0, 0))
r1 = entry(ipp(6), tcp, std(-2))
jmp_off = len(r1) + 3 * 152 + 176
e = [r1, entry(target=std(jmp_off + 0)), ] 
# INPUT: tcp rule, jump to chain c; policies; chain c: ERROR head, udp rule, RETURN; ERROR.
udp = ext("udp", struct.pack("<HHHHB", 0, 65535, 53, 53, 0))
jump = entry(ipp(17), b"", std(0))
inp = [r1, jump]
off = sum(map(len, inp))
pols = [entry(target=std(-1)), entry(target=std(-2)), entry(target=std(-2))]
head_off = off + 3 * 152
chain = [entry(target=err("c")), entry(ipp(17), udp, std(-1)), entry(target=std(-5))]
first = head_off + 176
jump = entry(ipp(17), b"", std(first))
inp = [r1, jump]
icmp = ext("icmp", struct.pack("<BBBB", 8, 0, 255, 0))
ents = inp + pols + chain + [entry(ipp(1), icmp, std(-1)), entry(target=err("ERROR"))]
hooks = {1: (0, off), 2: (off + 152, off + 152), 3: (off + 304, off + 304)}
open(os.path.join(out, "chain"), "wb").write(repl(ents, hooks, 4))
PY
echo "TAP version 13"
echo "1..1"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" > "$work/log" 2>&1
rc=$?
tail -n 15 "$work/log" | sed 's/^/# /'
if [ "$rc" -eq 0 ] && [ -z "$(ls -A "$work/artifacts")" ]; then
	echo "ok 1 fuzz_blob ${secs}s"
	echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
	exit 0
fi
mkdir -p build/fuzz/crashes
cp "$work"/artifacts/* build/fuzz/crashes/ 2>/dev/null
grep -E "ERROR|runtime error|SUMMARY" "$work/log" | head -n 20 | sed 's/^/# /'
echo "not ok 1 fuzz_blob: crash or sanitizer report (inputs in build/fuzz/crashes)"
echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
exit 1
