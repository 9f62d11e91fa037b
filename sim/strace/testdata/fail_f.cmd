strace -f -e trace=%network,close,write -o /work/main/sim/strace/testdata/fail_f.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py fail
