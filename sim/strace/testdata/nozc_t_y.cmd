strace -t -y -e trace=%network,close -o /work/main/sim/strace/testdata/nozc_t_y.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py nozc
