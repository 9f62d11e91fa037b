strace -f -tt -T -yy -o selftest_udp6_zc.log ./msg_zerocopy -6 -t 0 -D ::1 -z udp
