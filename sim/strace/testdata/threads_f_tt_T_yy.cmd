strace -f -tt -T -yy -e trace=%network,close -o /work/main/sim/strace/testdata/threads_f_tt_T_yy.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py threads
