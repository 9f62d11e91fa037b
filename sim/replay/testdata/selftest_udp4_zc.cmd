strace -f -tt -T -yy -o selftest_udp4_zc.log ./msg_zerocopy -4 -t 0 -D 127.0.0.1 -z udp
