go build -o udp_more udp_more.go && strace -f -tt -e trace=network,close -o udp_more.log ./udp_more  # as root, in a network namespace with lo up (unshare -n, ip link set lo up)
