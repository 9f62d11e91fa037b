strace -f -tt -T -yy -o selftest_udp6_cork_mixed.log ./msg_zerocopy -6 -t 0 -D ::1 -z -c 4 -m udp
