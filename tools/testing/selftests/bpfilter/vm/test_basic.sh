#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stock iptables-legacy commands: -L -S -A -I -D -R -C -N -X -E -P -F -Z with
# tcp/udp/icmp matches, inversions and user chains. Outputs recorded against
# stock ip_tables.
. "$(dirname "$0")/lib.sh"

reset_table

expect "initial table -L -n -v" 0 $IPT -L -n -v <<'EOF'
Chain INPUT (policy ACCEPT 0 packets, 0 bytes)
 pkts bytes target     prot opt in     out     source               destination         

Chain FORWARD (policy ACCEPT 0 packets, 0 bytes)
 pkts bytes target     prot opt in     out     source               destination         

Chain OUTPUT (policy ACCEPT 0 packets, 0 bytes)
 pkts bytes target     prot opt in     out     source               destination         
EOF

expect "initial table -S" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF

check "-A tcp --dport" 0 $IPT -A INPUT -p tcp --dport 22 -j ACCEPT
check "-A udp ! --sport with source net" 0 $IPT -A INPUT -p udp ! --sport 53 -s 10.1.0.0/16 -j DROP
check "-I icmp --icmp-type" 0 $IPT -I INPUT -p icmp --icmp-type echo-request -j ACCEPT
check "-I at position 3, ! -s, ! -p" 0 $IPT -I INPUT 3 ! -s 198.51.100.0/24 ! -p tcp -j DROP
check "-N user chain" 0 $IPT -N web
check "-A jump to user chain, ! -i eth+, --syn" 0 $IPT -A INPUT ! -i eth+ -p tcp --syn -j web
check "-A port range RETURN in user chain" 0 $IPT -A web -p tcp -m tcp --dport 80:88 -j RETURN
check "-A ! -d in user chain" 0 $IPT -A web ! -d 192.0.2.1 -j DROP
check "-A -o OUTPUT" 0 $IPT -A OUTPUT -o nomatch0 -j ACCEPT
check "-A icmp type/code, fragment" 0 $IPT -A FORWARD -f -p icmp --icmp-type 3/4 -j DROP
check "-A goto" 0 $IPT -A FORWARD -p udp --dport 1000:2000 -g web
check "-P FORWARD DROP" 0 $IPT -P FORWARD DROP

expect "-S after edits" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD DROP
-P OUTPUT ACCEPT
-N web
-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT ! -s 198.51.100.0/24 ! -p tcp -j DROP
-A INPUT -s 10.1.0.0/16 -p udp -m udp ! --sport 53 -j DROP
-A INPUT ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j web
-A FORWARD -p icmp -f -m icmp --icmp-type 3/4 -j DROP
-A FORWARD -p udp -m udp --dport 1000:2000 -g web
-A OUTPUT -o nomatch0 -j ACCEPT
-A web -p tcp -m tcp --dport 80:88 -j RETURN
-A web ! -d 192.0.2.1/32 -j DROP
EOF

expect "-L -n -v --line-numbers" 0 $IPT -L -n -v --line-numbers <<'EOF'
Chain INPUT (policy ACCEPT 0 packets, 0 bytes)
num   pkts bytes target     prot opt in     out     source               destination         
1        0     0 ACCEPT     1    --  *      *       0.0.0.0/0            0.0.0.0/0            icmptype 8
2        0     0 ACCEPT     6    --  *      *       0.0.0.0/0            0.0.0.0/0            tcp dpt:22
3        0     0 DROP      !6    --  *      *      !198.51.100.0/24      0.0.0.0/0           
4        0     0 DROP       17   --  *      *       10.1.0.0/16          0.0.0.0/0            udp spt:!53
5        0     0 web        6    --  !eth+  *       0.0.0.0/0            0.0.0.0/0            tcp flags:0x17/0x02

Chain FORWARD (policy DROP 0 packets, 0 bytes)
num   pkts bytes target     prot opt in     out     source               destination         
1        0     0 DROP       1    -f  *      *       0.0.0.0/0            0.0.0.0/0            icmptype 3 code 4
2        0     0 web        17   --  *      *       0.0.0.0/0            0.0.0.0/0           [goto]  udp dpts:1000:2000

Chain OUTPUT (policy ACCEPT 0 packets, 0 bytes)
num   pkts bytes target     prot opt in     out     source               destination         
1        0     0 ACCEPT     0    --  *      nomatch0  0.0.0.0/0            0.0.0.0/0           

Chain web (2 references)
num   pkts bytes target     prot opt in     out     source               destination         
1        0     0 RETURN     6    --  *      *       0.0.0.0/0            0.0.0.0/0            tcp dpts:80:88
2        0     0 DROP       0    --  *      *       0.0.0.0/0           !192.0.2.1           
EOF

expect "-L INPUT (names resolved)" 0 $IPT -L INPUT <<'EOF'
Chain INPUT (policy ACCEPT)
target     prot opt source               destination         
ACCEPT     icmp --  anywhere             anywhere             icmp echo-request
ACCEPT     tcp  --  anywhere             anywhere             tcp dpt:ssh
DROP      !tcp  -- !198.51.100.0/24      anywhere            
DROP       udp  --  10.1.0.0/16          anywhere             udp spt:!domain
web        tcp  --  anywhere             anywhere             tcp flags:FIN,SYN,RST,ACK/SYN
EOF

check "-C existing rule" 0 $IPT -C INPUT -p tcp --dport 22 -j ACCEPT
expect "-C missing rule" 1 $IPT -C INPUT -p tcp --dport 23 -j ACCEPT <<'EOF'
iptables: Bad rule (does a matching rule exist in that chain?).
EOF

check "-R rule 2" 0 $IPT -R INPUT 2 -p tcp --dport 2222 -j ACCEPT
check "-D by rule" 0 $IPT -D INPUT -p icmp --icmp-type echo-request -j ACCEPT
check "-D by number" 0 $IPT -D INPUT 2
expect "-S INPUT after -R/-D" 0 $IPT -S INPUT <<'EOF'
-P INPUT ACCEPT
-A INPUT -p tcp -m tcp --dport 2222 -j ACCEPT
-A INPUT -s 10.1.0.0/16 -p udp -m udp ! --sport 53 -j DROP
-A INPUT ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j web
EOF

expect "-D by number out of range" 1 $IPT -D INPUT 9 <<'EOF'
iptables: Index of deletion too big.
EOF
expect "-D missing rule" 1 $IPT -D INPUT -s 1.2.3.4 -j ACCEPT <<'EOF'
iptables: Bad rule (does a matching rule exist in that chain?).
EOF

check "-E rename user chain" 0 $IPT -E web www
expect "-S after -E" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD DROP
-P OUTPUT ACCEPT
-N www
-A INPUT -p tcp -m tcp --dport 2222 -j ACCEPT
-A INPUT -s 10.1.0.0/16 -p udp -m udp ! --sport 53 -j DROP
-A INPUT ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j www
-A FORWARD -p icmp -f -m icmp --icmp-type 3/4 -j DROP
-A FORWARD -p udp -m udp --dport 1000:2000 -g www
-A OUTPUT -o nomatch0 -j ACCEPT
-A www -p tcp -m tcp --dport 80:88 -j RETURN
-A www ! -d 192.0.2.1/32 -j DROP
EOF

# Counters: -c sets a rule's counters, -Z clears them (per chain, per rule, all).
check "-A with -c counters" 0 $IPT -A OUTPUT -c 7 700 -d 203.0.113.7 -j ACCEPT
check "-I with -c counters" 0 $IPT -I www -c 3 300 -p udp -j RETURN
expect "-L -v shows counters" 0 $IPT -L -n -v -x <<'EOF'
Chain INPUT (policy ACCEPT 0 packets, 0 bytes)
    pkts      bytes target     prot opt in     out     source               destination         
       0        0 ACCEPT     6    --  *      *       0.0.0.0/0            0.0.0.0/0            tcp dpt:2222
       0        0 DROP       17   --  *      *       10.1.0.0/16          0.0.0.0/0            udp spt:!53
       0        0 www        6    --  !eth+  *       0.0.0.0/0            0.0.0.0/0            tcp flags:0x17/0x02

Chain FORWARD (policy DROP 0 packets, 0 bytes)
    pkts      bytes target     prot opt in     out     source               destination         
       0        0 DROP       1    -f  *      *       0.0.0.0/0            0.0.0.0/0            icmptype 3 code 4
       0        0 www        17   --  *      *       0.0.0.0/0            0.0.0.0/0           [goto]  udp dpts:1000:2000

Chain OUTPUT (policy ACCEPT 0 packets, 0 bytes)
    pkts      bytes target     prot opt in     out     source               destination         
       0        0 ACCEPT     0    --  *      nomatch0  0.0.0.0/0            0.0.0.0/0           
       7      700 ACCEPT     0    --  *      *       0.0.0.0/0            203.0.113.7         

Chain www (2 references)
    pkts      bytes target     prot opt in     out     source               destination         
       3      300 RETURN     17   --  *      *       0.0.0.0/0            0.0.0.0/0           
       0        0 RETURN     6    --  *      *       0.0.0.0/0            0.0.0.0/0            tcp dpts:80:88
       0        0 DROP       0    --  *      *       0.0.0.0/0           !192.0.2.1           
EOF
check "-A another counted rule" 0 $IPT -A www -c 9 900 -j RETURN
check "-Z one rule" 0 $IPT -Z www 1
expect "-v -S after -Z of one rule" 0 $IPT -v -S www <<'EOF'
-N www
-A www -p udp -c 0 0 -j RETURN
-A www -p tcp -m tcp --dport 80:88 -c 0 0 -j RETURN
-A www ! -d 192.0.2.1/32 -c 0 0 -j DROP
-A www -c 9 900 -j RETURN
EOF
check "-Z one chain" 0 $IPT -Z OUTPUT
expect "-v -S after -Z of one chain" 0 $IPT -v -S <<'EOF'
-P INPUT ACCEPT -c 0 0
-P FORWARD DROP -c 0 0
-P OUTPUT ACCEPT -c 0 0
-N www
-A INPUT -p tcp -m tcp --dport 2222 -c 0 0 -j ACCEPT
-A INPUT -s 10.1.0.0/16 -p udp -m udp ! --sport 53 -c 0 0 -j DROP
-A INPUT ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -c 0 0 -j www
-A FORWARD -p icmp -f -m icmp --icmp-type 3/4 -c 0 0 -j DROP
-A FORWARD -p udp -m udp --dport 1000:2000 -c 0 0 -g www
-A OUTPUT -o nomatch0 -c 0 0 -j ACCEPT
-A OUTPUT -d 203.0.113.7/32 -c 0 0 -j ACCEPT
-A www -p udp -c 0 0 -j RETURN
-A www -p tcp -m tcp --dport 80:88 -c 0 0 -j RETURN
-A www ! -d 192.0.2.1/32 -c 0 0 -j DROP
-A www -c 9 900 -j RETURN
EOF
check "-A with -c in INPUT" 0 $IPT -A INPUT -c 5 50 -j ACCEPT
check "-Z all" 0 $IPT -Z
expect "-v -S after -Z of all" 0 $IPT -v -S www <<'EOF'
-N www
-A www -p udp -c 0 0 -j RETURN
-A www -p tcp -m tcp --dport 80:88 -c 0 0 -j RETURN
-A www ! -d 192.0.2.1/32 -c 0 0 -j DROP
-A www -c 0 0 -j RETURN
EOF
expect "-v -S INPUT after -Z of all" 0 $IPT -v -S INPUT <<'EOF'
-P INPUT ACCEPT -c 0 0
-A INPUT -p tcp -m tcp --dport 2222 -c 0 0 -j ACCEPT
-A INPUT -s 10.1.0.0/16 -p udp -m udp ! --sport 53 -c 0 0 -j DROP
-A INPUT ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -c 0 0 -j www
-A INPUT -c 0 0 -j ACCEPT
EOF

expect "-X chain in use" 1 $IPT -X www <<'EOF'
iptables: Too many links.
EOF
check "-F one chain" 0 $IPT -F INPUT
check "-F FORWARD" 0 $IPT -F FORWARD
expect "-X non-empty chain" 1 $IPT -X www <<'EOF'
iptables: Directory not empty.
EOF
check "-F user chain" 0 $IPT -F www
check "-X user chain" 0 $IPT -X www
check "-N then -F all, -X all" 0 sh -c "$IPT -N tmp1 && $IPT -N tmp2 && $IPT -A tmp1 -j tmp2 && $IPT -F && $IPT -X"
check "-P FORWARD ACCEPT" 0 $IPT -P FORWARD ACCEPT
expect "-S back to initial" 0 $IPT -S <<'EOF'
-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
EOF
check "-F of an empty chain" 0 $IPT -F OUTPUT
expect "-L -n after everything" 0 $IPT -L -n <<'EOF'
Chain INPUT (policy ACCEPT)
target     prot opt source               destination         

Chain FORWARD (policy ACCEPT)
target     prot opt source               destination         

Chain OUTPUT (policy ACCEPT)
target     prot opt source               destination         
EOF

done_testing
