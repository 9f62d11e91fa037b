gcc -O1 -o zcrx_tstamp zcrx_tstamp.c && unshare -n sh -c 'ip link set lo up mtu 49204 && strace -f -tt -T -yy -s 128 -o zcrx_tstamp.log ./zcrx_tstamp'  # as root
