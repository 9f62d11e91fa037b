#!/usr/bin/env bash
# Writes to stdout the strace log BenchmarkReplay (sim/replay/bench_test.go,
# genLog) replays: a traced loopback TCP connection, then rounds of eight
# 4096-byte MSG_ZEROCOPY sends, a read of what they sent on the accepted
# end and two error-queue reads (the round's notification, then EAGAIN),
# until about N calls. For timing zcsim replay on a log of a given length;
# see docs/performance.md.
#
# Usage: scripts/replay-bench-log.sh [N] > FILE   (N defaults to 1000000)
set -euo pipefail

n=${1:-1000000}
cat <<'HEAD'
socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 3
bind(3, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
listen(3, 1) = 0
socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = 4
setsockopt(4, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
accept4(3, {sa_family=AF_INET, sin_port=htons(54138), sin_addr=inet_addr("127.0.0.1")}, [16], SOCK_CLOEXEC) = 5
HEAD
awk -v n="$n" 'BEGIN {
	for (lo = 0; lo * 11 / 8 + 7 < n; lo += 8) {
		for (i = 0; i < 8; i++)
			print "sendto(4, \"zz\"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096"
		print "recvfrom(5, \"zz\"..., 65536, 0, NULL, NULL) = 32768"
		printf "recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"\", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=5, ee_type=0, ee_code=1, ee_info=%d, ee_data=%d}}], msg_controllen=48, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0\n", lo, lo + 7
		print "recvmsg(4, {msg_namelen=16}, MSG_ERRQUEUE) = -1 EAGAIN (Resource temporarily unavailable)"
	}
}'
