gcc -O1 -o select_loop select_loop.c && strace -f -tt -T -yy -s 8 -o select_loop.log ./select_loop  # as root, in a network namespace with lo up
