#!/usr/bin/env bash
# Builds the kernel's MSG_ZEROCOPY selftests (msg_zerocopy, udpgso_bench_tx)
# and its TCP zerocopy-receive selftest (tcp_mmap) from the Debian
# linux-source-6.1 package and records strace logs of them over loopback in
# a private network namespace, for
# sim/replay/testdata/selftest_*.log. See docs/replay.md, "Logs of the
# kernel's selftests".
#
# Usage: scripts/record-selftest-logs.sh [OUTDIR]
#   OUTDIR (default sim/replay/testdata) receives, for each run,
#   selftest_NAME.log.gz, the command in selftest_NAME.cmd and the replay's
#   flags in selftest_NAME.replay (tcp_mmap's in OUTDIR/tcp_mmap). Needs root (ip netns), strace and gcc:
#   apt-get install -y linux-source-6.1 strace gcc
# Environment: WORK, a directory for the sources and binaries (default a
# fresh mktemp -d); TARBALL, the source tarball
# (default /usr/src/linux-source-6.1.tar.xz); ONLY, names of runs to record
# (default all), e.g. ONLY="tcp4_zc tcp4_both_zc".
set -euo pipefail

out=${1:-sim/replay/testdata}
tarball=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
work=${WORK:-$(mktemp -d)}
mkdir -p "$out" "$work"
out=$(cd "$out" && pwd)

for tool in strace gcc ip; do
	command -v "$tool" >/dev/null || { echo "record-selftest-logs: $tool is missing" >&2; exit 2; }
done
[ -r "$tarball" ] || { echo "record-selftest-logs: no $tarball (apt-get install linux-source-6.1)" >&2; exit 2; }

# Only the three programs and the header udpgso_bench_tx includes are
# extracted.
net=tools/testing/selftests/net
if [ ! -x "$work/msg_zerocopy" ] || [ ! -x "$work/udpgso_bench_tx" ] || [ ! -x "$work/tcp_mmap" ]; then
	tar -xJf "$tarball" -C "$work" --strip-components=1 --wildcards \
		"*/$net/msg_zerocopy.c" "*/$net/udpgso_bench_tx.c" "*/$net/tcp_mmap.c" \
		"*/tools/testing/selftests/kselftest.h"
	gcc -O2 -o "$work/msg_zerocopy" "$work/$net/msg_zerocopy.c"
	gcc -O2 -o "$work/udpgso_bench_tx" "$work/$net/udpgso_bench_tx.c"
	gcc -O2 -pthread -o "$work/tcp_mmap" "$work/$net/tcp_mmap.c"
fi

ns=zcsim-rec-$$
ip netns add "$ns"
trap 'ip netns del "$ns"' EXIT
ip -n "$ns" link set lo up
inns() { ip netns exec "$ns" "$@"; }

# ready PROTO: wait (up to five seconds) until something listens on port
# 8000 in the namespace (ss -t or -u).
ready() {
	local flag=-t
	[ "$1" = udp ] && flag=-u
	for _ in $(seq 50); do
		inns ss -Hln "$flag" | grep -q ':8000 ' && return 0
		sleep 0.1
	done
	echo "record-selftest-logs: no $1 receiver on port 8000" >&2
	return 1
}

# want NAME: whether ONLY selects the run NAME.
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# The strace options the replay documents: follow children, wall-clock
# timestamps (their gaps guide the replay's schedule), call durations,
# decorated descriptors. The whole program is traced. STRACE_OPTS adds
# options (tcp_mmap's run: -s 64, so that strace shows the whole struct
# tcp_zerocopy_receive); REPLAY_OPTS adds replay flags (its loopback
# MTU, which the log does not show).
trace() {
	local name=$1
	shift
	local cmd
	printf -v cmd ' %q' "$@"
	local opts=(-f -tt -T -yy ${STRACE_OPTS:-})
	echo "strace ${opts[*]} -o selftest_$name.log$cmd" >"$out/selftest_$name.cmd"
	echo "--cap-ipc-lock --cap-net-admin ${REPLAY_OPTS:-}" | sed 's/ *$//' >"$out/selftest_$name.replay" # run as root
	local rc=0
	(cd "$work" && inns strace "${opts[@]}" -o "$out/selftest_$name.log" "$@") || rc=$?
	gzip -9nf "$out/selftest_$name.log"
	return $rc
}

# msg_zerocopy NAME FAMILY PROTO ARGS...: an untraced receiver (-r) in the
# same namespace, the traced sender for 200 ms (-t 0).
msg_zerocopy() {
	want "$1" || return 0
	local name=$1 fam=$2 proto=$3
	shift 3
	local addr=127.0.0.1
	[ "$fam" = -6 ] && addr=::1
	inns "$work/msg_zerocopy" "$fam" -r -t 0 -D "$addr" "$proto" &
	local rx=$!
	ready "$proto"
	trace "$name" ./msg_zerocopy "$fam" -t 0 -D "$addr" "$@" "$proto" || true
	wait "$rx" || true
}

msg_zerocopy tcp4_zc -4 tcp -z
msg_zerocopy tcp6_zc -6 tcp -z
msg_zerocopy tcp4_copy -4 tcp
msg_zerocopy udp4_zc -4 udp -z
msg_zerocopy udp6_zc -6 udp -z
msg_zerocopy udp4_cork -4 udp -z -c 4
msg_zerocopy udp6_cork_mixed -6 udp -z -c 4 -m

# Both ends in one trace: strace -f of a shell that starts the receiver
# (-r), then the sender, so that the replay pairs the receiver's accepted
# socket with the sender's by port and replays the receiver's reads too.
want tcp4_both_zc && trace tcp4_both_zc sh -c "./msg_zerocopy -4 -r -t 0 -D 127.0.0.1 tcp & sleep 0.2; ./msg_zerocopy -4 -t 0 -D 127.0.0.1 -z tcp; wait" || true

# sink ADDR: an untraced UDP receiver on port 8000 that drains what it gets
# for three seconds, so that the sender sees no ICMP port unreachable.
sink() {
	inns python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 8000))
s.settimeout(3)
try:
    while True:
        s.recv(65536)
except socket.timeout:
    pass
' "$1" &
	ready udp
}

# udpgso_bench_tx -z: GSO datagrams (-S 0: segments of the MSS) with
# MSG_ZEROCOPY, 1000 calls (-M 1000) within one second (-l 1).
for fam in 4 6; do
	want udpgso${fam}_zc || continue
	addr=127.0.0.1
	[ $fam = 6 ] && addr=::1
	sink $addr
	sinkpid=$!
	trace udpgso${fam}_zc ./udpgso_bench_tx -$fam -D $addr -l 1 -M 1000 -S 0 -z || true
	wait $sinkpid || true
done

# tcp_mmap -s -z: the server maps what it receives with
# getsockopt(TCP_ZEROCOPY_RECEIVE) and reads the rest (recv_skip_hint).
# Both ends in one trace, so the replay pairs the accept with the client's
# connect. Only a MSG_ZEROCOPY sender's pages can be mapped (the client's
# -z); an MTU of 49204 makes the MSS 49152, twelve whole pages (the
# replay's --mtu). The client sends 32 GiB unless stopped: it is paced at
# 4 MB/s (-P) and stopped after a second (timeout's SIGTERM, which cuts
# its last send short), a few MB; the server is then killed. Its log goes
# to OUTDIR/tcp_mmap: each recording overlaps the client's sleeping sends
# and the server's reads differently, and the logs there are the ones the
# tests were written against (docs/replay.md).
if want tcp_mmap_zc; then
	ip -n "$ns" link set lo mtu 49204
	mkdir -p "$out/tcp_mmap"
	out=$out/tcp_mmap STRACE_OPTS="-s 64" REPLAY_OPTS="--mtu 49204" trace tcp_mmap_zc sh -c './tcp_mmap -4 -s -z & sleep 0.2; timeout 1 ./tcp_mmap -4 -H 127.0.0.1 -z -P 4000000; sleep 0.2; kill $!; wait' || true
	ip -n "$ns" link set lo mtu 65536
fi
ls -l "$out"/selftest_*.log.gz "$out"/tcp_mmap/selftest_*.log.gz 2>/dev/null || true
