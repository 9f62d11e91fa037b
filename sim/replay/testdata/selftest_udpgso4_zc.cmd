strace -f -tt -T -yy -o selftest_udpgso4_zc.log ./udpgso_bench_tx -4 -D 127.0.0.1 -l 1 -M 1000 -S 0 -z
