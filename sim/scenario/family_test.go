package scenario

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRetarget(t *testing.T) {
	src := `socket s AF_INET SOCK_DGRAM
socket p AF_INET SOCK_DGRAM IPPROTO_ICMP
socket l AF_INET SOCK_STREAM
accept l c
setsockopt s SOL_IP IP_RECVERR 1
getsockopt c.peer SOL_IP IP_RECVERR => 1
repeat 2 {
  recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 cmsg_level=SOL_IP cmsg_type=IP_RECVERR
}
recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted=519
recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted=520
setsockopt p SOL_IP IP_RECVERR 1
`
	want := map[Family]string{
		Inet: src,
		Inet6: `socket s AF_INET6 SOCK_DGRAM
socket p AF_INET SOCK_DGRAM IPPROTO_ICMP
socket l AF_INET6 SOCK_STREAM
accept l c
setsockopt s SOL_IPV6 IPV6_RECVERR 1
getsockopt c.peer SOL_IPV6 IPV6_RECVERR => 1
repeat 2 {
  recvmsg s MSG_ERRQUEUE => icmp6 ECONNREFUSED type=1 code=4 cmsg_level=SOL_IPV6 cmsg_type=IPV6_RECVERR
}
recvmsg s MSG_ERRQUEUE => icmp6 ECONNREFUSED type=1 code=4 quoted=519
recvmsg s MSG_ERRQUEUE => icmp6 ECONNREFUSED type=1 code=4
setsockopt p SOL_IP IP_RECVERR 1
`,
		Mapped: `socket s AF_INET6 SOCK_DGRAM mapped
socket p AF_INET SOCK_DGRAM IPPROTO_ICMP
socket l AF_INET6 SOCK_STREAM mapped
accept l c
setsockopt s SOL_IP IP_RECVERR 1
getsockopt c.peer SOL_IP IP_RECVERR => 1
repeat 2 {
  recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 cmsg_level=SOL_IPV6 cmsg_type=IPV6_RECVERR
}
recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted=519
recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted=520
setsockopt p SOL_IP IP_RECVERR 1
`,
	}
	for f, w := range want {
		t.Run(f.String(), func(t *testing.T) {
			stmts := mustParse(t, src)
			rt := Retarget{To: f}
			for _, st := range stmts {
				rt.Rewrite(st)
			}
			if diff := cmp.Diff(w, Format(stmts)); diff != "" {
				t.Errorf("Retarget to %v (-want +got):\n%s", f, diff)
			}
		})
	}
	if _, err := ParseFamily("inet7"); err == nil {
		t.Error("ParseFamily(inet7) did not fail")
	}
	if f, err := ParseFamily("mapped"); err != nil || f != Mapped {
		t.Errorf("ParseFamily(mapped) = %v, %v", f, err)
	}
}
