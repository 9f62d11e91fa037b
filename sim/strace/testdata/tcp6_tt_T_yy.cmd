strace -f -tt -T -yy -e trace=%network,close -o /work/main/sim/strace/testdata/tcp6_tt_T_yy.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py tcp6
