strace -r -T -e trace=%network -o /work/main/sim/strace/testdata/udp6_r_T.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py udp6
