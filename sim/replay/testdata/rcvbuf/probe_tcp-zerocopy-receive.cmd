strace -f -tt -T -yy -s 64 -e trace=network,close,prlimit64,write,mmap,munmap,read,poll,ppoll -o probe_tcp-zerocopy-receive.log zcsim probe probe/testdata/tcp-zerocopy-receive.zcs
