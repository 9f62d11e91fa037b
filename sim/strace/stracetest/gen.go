// Package stracetest writes syntactically valid strace logs for tests and
// fuzz seeds: the socket, option, send, receive, error-queue, close and
// rlimit calls of a MSG_ZEROCOPY program, in the forms strace 6.x prints
// them, under a random choice of strace options (-f pid prefixes, -t,
// -tt, -ttt and -r timestamps, -T durations, -yy descriptor decorations,
// -X raw or verbose constants), with random descriptors, sizes, flags and
// results. The same seed writes the same log.
package stracetest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Options are the strace output options of one generated log.
type Options struct {
	Pids       int  // 0 none, 1 "4007  " (-f -o), 2 "[pid  4007] " (-f to stderr)
	Timestamps int  // 0 none, 1 -t, 2 -tt, 3 -ttt, 4 -r
	Durations  bool // -T
	Decorate   bool // -yy
	Constants  int  // 0 symbolic, 1 -X raw, 2 -X verbose
}

// Gen writes logs from one seed.
type Gen struct {
	rng  *rand.Rand
	opts Options
	b    strings.Builder
	now  int64 // ns since midnight
	fds  []int
	pid  int
}

// Log returns a log of about n calls written from seed, and the options
// it was written with.
func Log(seed uint64, n int) (string, Options) {
	g := &Gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	g.opts = Options{Pids: g.rng.IntN(3), Timestamps: g.rng.IntN(5), Durations: g.rng.IntN(2) == 0,
		Decorate: g.rng.IntN(3) == 0, Constants: g.rng.IntN(3)}
	g.now = int64(g.rng.IntN(86000)) * 1e9
	g.pid = 4000 + g.rng.IntN(100)
	for range n {
		g.call()
	}
	return g.b.String(), g.opts
}

func (g *Gen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }

// prefix writes the pid and the timestamp of a line.
func (g *Gen) prefix(pid int) {
	switch g.opts.Pids {
	case 1:
		fmt.Fprintf(&g.b, "%d  ", pid)
	case 2:
		fmt.Fprintf(&g.b, "[pid %5d] ", pid)
	}
	gap := int64(g.rng.IntN(2000000))
	g.now += gap
	sec, ns := g.now/1e9%86400, g.now%1e9
	switch g.opts.Timestamps {
	case 1:
		fmt.Fprintf(&g.b, "%02d:%02d:%02d ", sec/3600, sec/60%60, sec%60)
	case 2:
		fmt.Fprintf(&g.b, "%02d:%02d:%02d.%06d ", sec/3600, sec/60%60, sec%60, ns/1000)
	case 3:
		fmt.Fprintf(&g.b, "%d.%06d ", 1795900000+g.now/1e9, ns/1000)
	case 4:
		fmt.Fprintf(&g.b, "%6d.%06d ", gap/1e9, gap%1e9/1000)
	}
}

// c prints a constant as -X asks: its name, its number, or both.
func (g *Gen) c(name string, num uint64) string {
	switch g.opts.Constants {
	case 1:
		return fmt.Sprintf("%#x", num)
	case 2:
		return fmt.Sprintf("%#x /* %s */", num, name)
	}
	return name
}

// fd prints a descriptor, decorated under -yy.
func (g *Gen) fd(n int) string {
	if !g.opts.Decorate {
		return fmt.Sprint(n)
	}
	return g.pick(fmt.Sprintf("%d<TCP:[127.0.0.1:%d->127.0.0.1:8000]>", n, 40000+n),
		fmt.Sprintf("%d<UDP:[127.0.0.1:%d]>", n, 5000+n), fmt.Sprintf("%d<socket:[%d]>", n, 10000+n))
}

// someFd is a descriptor the log opened, or now and then any number.
func (g *Gen) someFd() int {
	if len(g.fds) == 0 || g.rng.IntN(10) == 0 {
		return 3 + g.rng.IntN(8)
	}
	return g.fds[g.rng.IntN(len(g.fds))]
}

// size is a buffer length: mostly small, sometimes at the edges of what
// a size_t can hold.
func (g *Gen) size() uint64 {
	switch g.rng.IntN(20) {
	case 0:
		return g.pickU(1<<64-1, 1<<63, 1<<62, 0x7ffff000, 0x7ffff001, 1<<47)
	case 1:
		return 0
	}
	return uint64(1 + g.rng.IntN(70000))
}

func (g *Gen) pickU(xs ...uint64) uint64 { return xs[g.rng.IntN(len(xs))] }

// result is "= N", an errno, or an interrupted call.
func (g *Gen) result(ok string) string {
	switch g.rng.IntN(12) {
	case 0:
		return g.pick("-1 EAGAIN (Resource temporarily unavailable)", "-1 ENOBUFS (No buffer space available)",
			"-1 EINVAL (Invalid argument)", "-1 EFAULT (Bad address)", "-1 EMSGSIZE (Message too long)")
	case 1:
		return g.pick("? ERESTARTSYS (To be restarted if SA_RESTART is set)", "? ERESTARTNOHAND (To be restarted if no handler)", "?")
	}
	return ok
}

func (g *Gen) flags() string {
	var fs []string
	var bits uint64
	for _, f := range []struct {
		name string
		bit  uint64
	}{{"MSG_DONTWAIT", 0x40}, {"MSG_MORE", 0x8000}, {"MSG_ZEROCOPY", 0x4000000}} {
		if g.rng.IntN(2) == 0 {
			fs = append(fs, f.name)
			bits |= f.bit
		}
	}
	if len(fs) == 0 {
		return "0"
	}
	return g.c(strings.Join(fs, "|"), bits)
}

func (g *Gen) addr(v6 bool, port int) string {
	if v6 {
		return fmt.Sprintf("{sa_family=%s, sin6_port=htons(%d), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, \"::1\", &sin6_addr), sin6_scope_id=0}, 28",
			g.c("AF_INET6", 10), port)
	}
	return fmt.Sprintf("{sa_family=%s, sin_port=htons(%d), sin_addr=inet_addr(\"127.0.0.1\")}, 16", g.c("AF_INET", 2), port)
}

func (g *Gen) iov(n int) (string, uint64) {
	var parts []string
	var total uint64
	for range n {
		l := g.size()
		total += l
		parts = append(parts, fmt.Sprintf("{iov_base=\"%s\"..., iov_len=%d}", g.pick("z", "\\0\\1", ""), l))
	}
	if g.rng.IntN(8) == 0 {
		parts = append(parts, "...")
	}
	return "[" + strings.Join(parts, ", ") + "]", total
}

func (g *Gen) msghdr() (string, uint64) {
	if g.rng.IntN(10) == 0 {
		return "{...}", uint64(g.rng.IntN(9000))
	}
	n := 1 + g.rng.IntN(3)
	iov, total := g.iov(n)
	return fmt.Sprintf("{msg_name=NULL, msg_namelen=0, msg_iov=%s, msg_iovlen=%d, msg_controllen=0, msg_flags=0}", iov, n), total
}

func (g *Gen) extErr() string {
	lo := g.rng.IntN(10)
	hi := lo + g.rng.IntN(5)
	origin, code := g.c("SO_EE_ORIGIN_ZEROCOPY", 5), g.pick("0", "SO_EE_CODE_ZEROCOPY_COPIED")
	if g.rng.IntN(3) == 0 {
		origin, code = "5", g.pick("0", "1")
	}
	return fmt.Sprintf("{cmsg_len=48, cmsg_level=%s, cmsg_type=%s, cmsg_data={ee_errno=0, ee_origin=%s, ee_type=0, ee_code=%s, ee_info=%d, ee_data=%d}}",
		g.c("SOL_IP", 0), g.c("IP_RECVERR", 11), origin, code, lo, hi)
}

// call writes one call line, or an unfinished line and its resumed half
// around another call of a second thread.
func (g *Gen) call() {
	fd := g.someFd()
	var name, args, ok string
	switch g.rng.IntN(13) {
	case 0, 1:
		nfd := 3 + g.rng.IntN(8)
		typ := g.pick("SOCK_STREAM", "SOCK_DGRAM", "SOCK_STREAM|SOCK_CLOEXEC", "SOCK_DGRAM|SOCK_NONBLOCK")
		tnum := map[string]uint64{"SOCK_STREAM": 1, "SOCK_DGRAM": 2, "SOCK_STREAM|SOCK_CLOEXEC": 0x80001, "SOCK_DGRAM|SOCK_NONBLOCK": 0x802}[typ]
		fam, fnum := "AF_INET", uint64(2)
		if g.rng.IntN(3) == 0 {
			fam, fnum = "AF_INET6", 10
		}
		name, args, ok = "socket", fmt.Sprintf("%s, %s, %s", g.c(fam, fnum), g.c(typ, tnum), g.c("IPPROTO_IP", 0)), g.fd(nfd)
		g.fds = append(g.fds, nfd)
	case 2:
		opt, num, val := g.pick("SO_ZEROCOPY", "SO_SNDBUF", "SO_REUSEADDR"), uint64(0), g.pick("1", "0", "4096", "2147483647")
		num = map[string]uint64{"SO_ZEROCOPY": 0x3c, "SO_SNDBUF": 7, "SO_REUSEADDR": 2}[opt]
		name, args, ok = "setsockopt", fmt.Sprintf("%s, %s, %s, [%s], 4", g.fd(fd), g.c("SOL_SOCKET", 1), g.c(opt, num), val), "0"
	case 3:
		name, args, ok = g.pick("bind", "connect"), fmt.Sprintf("%s, %s", g.fd(fd), g.addr(g.rng.IntN(3) == 0, 8000+g.rng.IntN(3))), "0"
	case 4:
		name, args, ok = "listen", fmt.Sprintf("%s, %d", g.fd(fd), g.rng.IntN(200)), "0"
	case 5:
		nfd := 3 + g.rng.IntN(8)
		name, args, ok = "accept4", fmt.Sprintf("%s, %s, [16], %s", g.fd(fd), strings.TrimSuffix(g.addr(false, 40000+g.rng.IntN(1000)), ", 16"), g.c("SOCK_CLOEXEC", 0x80000)), g.fd(nfd)
		g.fds = append(g.fds, nfd)
	case 6, 7:
		n := g.size()
		name, args, ok = "sendto", fmt.Sprintf("%s, \"zz\"..., %d, %s, NULL, 0", g.fd(fd), n, g.flags()), fmt.Sprint(min(n, 70000))
	case 8:
		m, total := g.msghdr()
		name, args, ok = "sendmsg", fmt.Sprintf("%s, %s, %s", g.fd(fd), m, g.flags()), fmt.Sprint(min(total, 70000))
	case 9:
		k := 1 + g.rng.IntN(3)
		var ms []string
		for range k {
			m, total := g.msghdr()
			ms = append(ms, fmt.Sprintf("{msg_hdr=%s, msg_len=%d}", m, min(total, 70000)))
		}
		name, args, ok = "sendmmsg", fmt.Sprintf("%s, [%s], %d, %s", g.fd(fd), strings.Join(ms, ", "), k, g.flags()), fmt.Sprint(k)
	case 10:
		ctl := g.extErr()
		name, args, ok = "recvmsg", fmt.Sprintf("%s, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"\", iov_len=1}], msg_iovlen=1, msg_control=[%s], msg_controllen=48, msg_flags=%s}, %s",
			g.fd(fd), ctl, g.c("MSG_ERRQUEUE", 0x2000), g.c("MSG_ERRQUEUE", 0x2000)), "0"
		if g.rng.IntN(3) == 0 {
			args, ok = fmt.Sprintf("%s, {msg_namelen=16}, %s", g.fd(fd), g.c("MSG_ERRQUEUE", 0x2000)), "-1 EAGAIN (Resource temporarily unavailable)"
		}
	case 11:
		name, args, ok = "close", g.fd(fd), "0"
	default:
		name, args, ok = "prlimit64", fmt.Sprintf("0, %s, {rlim_cur=%s, rlim_max=%s}, NULL", g.c("RLIMIT_MEMLOCK", 8), g.pick("8192*1024", "4096", "RLIM64_INFINITY"), g.pick("8192*1024", "RLIM64_INFINITY")), "0"
	}
	res := g.result(ok)
	if g.opts.Pids != 0 && g.rng.IntN(6) == 0 {
		// Another thread's call between the two halves.
		head, tail, two := strings.Cut(args, ", ")
		if two {
			head += ","
		}
		g.prefix(g.pid)
		fmt.Fprintf(&g.b, "%s(%s <unfinished ...>\n", name, head)
		g.prefix(g.pid + 1)
		fmt.Fprintf(&g.b, "close(%d) = 0\n", 20+g.rng.IntN(5))
		g.prefix(g.pid)
		fmt.Fprintf(&g.b, "<... %s resumed>%s) = %s", name, tail, res)
	} else {
		g.prefix(g.pid)
		fmt.Fprintf(&g.b, "%s(%s) = %s", name, args, res)
	}
	if g.opts.Durations {
		fmt.Fprintf(&g.b, " <0.%06d>", g.rng.IntN(100000))
	}
	g.b.WriteByte('\n')
}
