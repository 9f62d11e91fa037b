strace -f -tt -T -yy -e trace=network,close,prlimit64,write -o probe_udp6.log zcsim probe probe/testdata/udp6.zcs
