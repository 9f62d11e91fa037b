gcc -O1 -o poll_loop poll_loop.c && strace -f -tt -T -yy -s 8 -o poll_loop.log ./poll_loop  # as root, in a network namespace with lo up
