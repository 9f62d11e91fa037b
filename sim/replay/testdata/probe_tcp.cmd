strace -f -tt -T -yy -e trace=network,close,prlimit64,write -o probe_tcp.log zcsim probe probe/testdata/tcp.zcs
