strace -f -tt -T -yy -o selftest_tcp6_zc.log ./msg_zerocopy -6 -t 0 -D ::1 -z tcp
