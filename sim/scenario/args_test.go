package scenario

import (
	"testing"

	"github.com/zcsim/zcsim/kernel"
)

// The parsed names come back as the kernel values a system call takes.
func TestArgs(t *testing.T) {
	stmts, err := Parse("args.zcs", []byte(`socket s AF_INET6 SOCK_DGRAM|SOCK_NONBLOCK IPPROTO_UDP
socket r AF_INET SOCK_RAW 255
setsockopt s SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_OPT_ID
setsockopt s SOL_SOCKET SO_SNDBUF 64K
sendmsg s [1K, 100] MSG_ZEROCOPY|MSG_MORE
`))
	if err != nil {
		t.Fatal(err)
	}
	f, ty, p := stmts[0].(*Socket).Args()
	if f != kernel.AF_INET6 || ty != kernel.SOCK_DGRAM|kernel.SOCK_NONBLOCK || p != kernel.IPPROTO_UDP {
		t.Errorf("socket args = %v %v %v", f, ty, p)
	}
	if _, _, p := stmts[1].(*Socket).Args(); p != kernel.IPPROTO_RAW {
		t.Errorf("numeric protocol = %v, want 255", p)
	}
	if o, v := stmts[2].(*Setsockopt).Option(); o != kernel.SO_TIMESTAMPING || v != int(kernel.SOF_TIMESTAMPING_TX_SOFTWARE|kernel.SOF_TIMESTAMPING_OPT_ID) {
		t.Errorf("timestamping option = %v %#x", o, v)
	}
	if o, v := stmts[3].(*Setsockopt).Option(); o != kernel.SO_SNDBUF || v != 65536 {
		t.Errorf("sndbuf option = %v %d", o, v)
	}
	m := stmts[4].(*Sendmsg)
	if got := m.Flags.MsgFlags(); got != kernel.MSG_ZEROCOPY|kernel.MSG_MORE {
		t.Errorf("flags = %v", got)
	}
	if got := Lengths(m.Iov); len(got) != 2 || got[0] != 1024 || got[1] != 100 {
		t.Errorf("lengths = %v", got)
	}
}
