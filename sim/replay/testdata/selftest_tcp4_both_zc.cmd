strace -f -tt -T -yy -o selftest_tcp4_both_zc.log sh -c ./msg_zerocopy\ -4\ -r\ -t\ 0\ -D\ 127.0.0.1\ tcp\ \&\ sleep\ 0.2\;\ ./msg_zerocopy\ -4\ -t\ 0\ -D\ 127.0.0.1\ -z\ tcp\;\ wait
