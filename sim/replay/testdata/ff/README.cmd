gcc -O1 -pthread -o forms ../forms.c && strace -ff -tt -T -yy -o forms ./forms
