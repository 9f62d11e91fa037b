strace -f -tt -T -yy -e trace=network,close,prlimit64,write -o probe_tcp-cork.log zcsim probe probe/testdata/tcp-cork.zcs
