gcc -O1 -pthread -o forms forms.c && strace -f -tt -T -yy -o forms.log ./forms
