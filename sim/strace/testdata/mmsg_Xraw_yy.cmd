strace -X raw -yy -e trace=%network -o /work/main/sim/strace/testdata/mmsg_Xraw_yy.log /root/.pyenv/versions/3.11.7/bin/python3 mmsg.py
