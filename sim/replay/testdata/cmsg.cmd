gcc -O1 -o cmsg cmsg.c && setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all strace -f -tt -T -yy -o cmsg.log ./cmsg
