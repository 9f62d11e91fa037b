strace -f -e trace=%network 2> /work/main/sim/strace/testdata/threads_stderr.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py threads
