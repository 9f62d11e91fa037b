strace -f -e trace=%network,close -o /work/main/sim/strace/testdata/tcp4_f.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py tcp4
