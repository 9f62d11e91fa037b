strace -X raw -e trace=socket,bind,listen,connect,accept,sendto,getsockopt,mmap,munmap -o zcrx_Xraw.log ./zcrx_probe  # sim/replay/testdata/zcrx_probe.c, as root in a network namespace
