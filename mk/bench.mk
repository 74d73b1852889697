# SPDX-License-Identifier: GPL-2.0
# owned by engineer F: the benchmark of issue 5 (tools/bench/, docs/benchmarks.md).
#
#   make bench-tools  -> build/bench/{bench-gen,bench-udp,bench-prog}
#   make bench        full run (<= 20 min): IPv4 (about 15 min), then IPv6
#                     (issue 13: blocklist and mixed at 1, 100, 10k, 100k rules,
#                     3 rounds instead of 7, about 4 min); rewrites
#                     docs/benchmarks.md, benchmarks.png and benchmarks6.png
#   make bench6       the IPv6 part of make bench alone: prints its report and
#                     bench6: lines, writes no docs
#   make bench-stateful  the stateful shape (issue 11) at 1, 1k, 10k rules,
#                     21 rounds of 0.5 s (about 6 min): prints its report,
#                     the figures of the README's benchmark section
#   make bench-nat    kube-proxy's nat rules for 10, 1k and 10k services in the
#                     6.12 VM: new connections per second with ip_tables,
#                     nftables and bpfilter.ko (tools/bench/nat_bench.sh)
#   make bench-smoke  short run that checks the tool works: IPv4 at 1 and 100
#                     rules (about 70 s on 2 busy cores), then IPv6 at 100
#                     (about 20 s more)
#   make bench-control  the control plane (issue 30): kube-proxy's filter
#                     table for 1k, 10k and 20k ClusterIP services, IPv4 and
#                     IPv6, loaded whole (iptables-legacy-restore) and changed
#                     by one service (kube-proxy's --noflush partial sync) in
#                     fresh namespaces, natively on this host: ip_tables,
#                     bpfilter (shim + hostd) and nftables (kube-proxy's
#                     verdict map and incremental transaction), 3 interleaved
#                     rounds, medians; prints a table per case and one
#                     "control: family=F table=filter services=N full_ratio=X
#                     delta_ratio=Y ..." line each (bpfilter / ip_tables), and
#                     the helper's peak RSS and BPF memory (control-mem:).
#                     About 20 min on 2 busy cores, most of it nftables'
#                     full loads at 10k and 20k (its kernel's cost grows with
#                     the square of the per-service numgen maps; 20k hits the
#                     300 s bound). Options through BENCH_CONTROL_ARGS, e.g.
#                     "--sizes 1000 --family 4" (tools/bench/bench_control.sh)
#
# Both need root (network namespaces, BPF) and the helper + shim builds.

BENCH_SRC := $(SRCTREE)/tools/bench
BENCH_OUT := $(BUILD)/bench
BENCH_CFLAGS := -O2 -g -Wall -Wextra -Werror -std=gnu11
BENCH_TOOLS := $(BENCH_OUT)/bench-gen $(BENCH_OUT)/bench-udp $(BENCH_OUT)/bench-prog \
	$(BENCH_OUT)/bench-conn

bench-tools: $(BENCH_TOOLS)

$(BENCH_OUT)/bench-gen: $(BENCH_SRC)/bench_gen.c $(BENCH_SRC)/shapes.c $(BENCH_SRC)/shapes.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $(BENCH_SRC)/bench_gen.c $(BENCH_SRC)/shapes.c

$(BENCH_OUT)/bench-conn: $(BENCH_SRC)/bench_conn.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $<

$(BENCH_OUT)/bench-udp: $(BENCH_SRC)/bench_udp.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $<

# The counters map is read with the helper's own codegen_counters_sum().
$(BENCH_OUT)/bench-prog: $(BENCH_SRC)/bench_prog.c $(BENCH_SRC)/shapes.c $(BENCH_SRC)/shapes.h \
		$(SRCTREE)/net/bpfilter/codegen.h $(HELPER_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) $(HELPER_CPPFLAGS) -o $@ $(BENCH_SRC)/bench_prog.c \
		$(BENCH_SRC)/shapes.c $(HELPER_LIB) $$(pkg-config --static --libs libbpf)

bench: helper shim bench-tools
	bash $(BENCH_SRC)/bench.sh --full --out $(SRCTREE)/docs

bench6: helper shim bench-tools
	bash $(BENCH_SRC)/bench.sh --full --family 6

bench-stateful: helper shim bench-tools
	bash $(BENCH_SRC)/bench.sh --full --family 4 --shapes stateful --sizes "1 1000 10000" \
		--runs 21 --secs 0.5

bench-smoke: helper shim bench-tools
	bash $(BENCH_SRC)/bench.sh --smoke

# The NAT benchmark (issue 14) in the 6.12 test VM: two boots, about 30 min
# with the default sizes 10, 1000 and 10000 services on 2 cores.
bench-nat: modules bench-tools
	bash $(BENCH_SRC)/nat_bench.sh

# The control-plane benchmark (issue 30): the host's part, the filter table.
# Its rules come from tools/bench/kube_gen.sh, which bench-nat's guest shares.
BENCH_CONTROL_ARGS ?=
bench-control: helper shim
	bash $(BENCH_SRC)/bench_control.sh $(BENCH_CONTROL_ARGS)

bench-clean:
	rm -rf $(BENCH_OUT)

.PHONY: bench bench6 bench-stateful bench-smoke bench-nat bench-control bench-tools bench-clean
