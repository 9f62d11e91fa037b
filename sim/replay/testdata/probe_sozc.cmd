strace -f -tt -T -yy -e trace=network,close,prlimit64,write -o probe_sozc.log zcsim probe probe/testdata/sozc.zcs
