strace -f -o /work/main/sim/strace/testdata/udp4_full_f.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py udp4
