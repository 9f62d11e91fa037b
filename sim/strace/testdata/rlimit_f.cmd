strace -f -e trace=%network,prlimit64,setrlimit -o /work/main/sim/strace/testdata/rlimit_f.log /root/.pyenv/versions/3.11.7/bin/python3 zc.py rlimit
