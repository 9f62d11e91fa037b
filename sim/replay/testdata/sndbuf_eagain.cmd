gcc -O1 -o sndbuf_eagain sndbuf_eagain.c && strace -f -tt -T -yy -s 8 -o sndbuf_eagain.log ./sndbuf_eagain  # as root, in a network namespace with lo up
