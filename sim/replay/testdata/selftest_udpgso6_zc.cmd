strace -f -tt -T -yy -o selftest_udpgso6_zc.log ./udpgso_bench_tx -6 -D ::1 -l 1 -M 1000 -S 0 -z
