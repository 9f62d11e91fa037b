strace -f -tt -T -yy -s 64 -o selftest_tcp_mmap_zc.log sh -c ./tcp_mmap\ -4\ -s\ -z\ \&\ sleep\ 0.2\;\ timeout\ 1\ ./tcp_mmap\ -4\ -H\ 127.0.0.1\ -z\ -P\ 4000000\;\ sleep\ 0.2\;\ kill\ \$\!\;\ wait
