strace -f -tt -T -yy -e trace=network,close,prlimit64,write -o probe_udp.log zcsim probe probe/testdata/udp.zcs
