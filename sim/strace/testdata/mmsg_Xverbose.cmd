strace -X verbose -e trace=%network -o /work/main/sim/strace/testdata/mmsg_Xverbose.log /root/.pyenv/versions/3.11.7/bin/python3 mmsg.py
