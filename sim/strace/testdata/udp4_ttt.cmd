strace -ttt -e trace=%network,close -o /work/main/sim/strace/testdata/udp4_ttt.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py udp4
