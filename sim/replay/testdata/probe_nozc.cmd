strace -f -tt -T -yy -e trace=network,close,prlimit64,write -o probe_nozc.log zcsim probe probe/testdata/nozc.zcs
