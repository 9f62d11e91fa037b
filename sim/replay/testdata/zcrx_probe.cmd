gcc -O1 -o zcrx_probe zcrx_probe.c && strace -f -tt -T -yy -s 64 -o zcrx_probe.log ./zcrx_probe  # as root, in a network namespace with lo up
