strace -f -tt -T -yy -e trace=network,close,prlimit64,write -o probe_optmem.log zcsim probe probe/testdata/optmem.zcs
