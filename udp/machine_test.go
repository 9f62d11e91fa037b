package udp_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sock"
)

// TestStateMachine drives one UDP or RAW socket with random sends (sizes
// around the interesting bounds, any mix of MSG_MORE, MSG_ZEROCOPY,
// MSG_DONTWAIT), UDP_CORK and UDP_SEGMENT changes, transmissions that
// complete over a NIC or loopback or are held, error-queue reads,
// allocation failures and close. After every step the host must report
// no violation and every id must have been given in order and notified at
// most once (a notify.Ledger); at the end everything is notified and
// freed.
func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		prof := rapid.SampledFrom([]string{"rfc-v2", "linux-4.14", "linux-5.0", "linux-6.18"}).Draw(rt, "profile")
		fam := rapid.SampledFrom([]kernel.Family{kernel.AF_INET, kernel.AF_INET6}).Draw(rt, "family")
		raw := rapid.Bool().Draw(rt, "raw")
		route := rapid.SampledFrom([]sock.Route{loRoute, nicRoute, {MTU: 1500}, {SG: true, MTU: 9000}}).Draw(rt, "route")
		typ, proto := kernel.SOCK_DGRAM, kernel.IPPROTO_UDP
		if raw {
			typ, proto = kernel.SOCK_RAW, kernel.IPPROTO_UDP // not IPPROTO_RAW: that implies IP_HDRINCL
		}
		e := newEnv(rt, prof, fam, typ, proto, route, hold)
		e.u.Setsockopt(kernel.SO_ZEROCOPY, 1)
		e.task.Memlock = rapid.SampledFrom([]uint64{64 << 10, 8 << 20}).Draw(rt, "memlock")
		faults := failSites{}
		e.h.Faults = faults
		var ledger notify.Ledger
		closed := false
		sizes := rapid.OneOf(rapid.IntRange(0, 100), rapid.IntRange(1400, 1600), rapid.IntRange(0, 66000),
			rapid.SampledFrom([]int{0, 1, 1472, 4096, 32000, 65000, 65507, 65508, 65527, 65528, 400000}))
		flagBits := []kernel.MsgFlags{kernel.MSG_MORE, kernel.MSG_ZEROCOPY, kernel.MSG_DONTWAIT}

		read := func(t *rapid.T) {
			for {
				r, err := e.sk.RecvErrqueue()
				if err != 0 {
					return
				}
				if r.IsZerocopy() {
					_, lerr := ledger.Complete(r.Range())
					require.NoError(t, lerr)
				}
			}
		}
		t := rt
		t.Repeat(map[string]func(*rapid.T){
			"send": func(t *rapid.T) {
				if closed {
					t.Skip("closed")
				}
				n := sizes.Draw(t, "len")
				var flags kernel.MsgFlags
				for _, f := range flagBits {
					if rapid.Bool().Draw(t, f.String()) {
						flags |= f
					}
				}
				key := e.sk.ZCKey()
				r := e.send(n, flags)
				if r.ZC {
					require.NotZero(t, flags&kernel.MSG_ZEROCOPY)
					require.NoError(t, ledger.Sent(r.ID, "send", n))
					require.Equal(t, r.ID+1, e.sk.ZCKey())
				} else {
					require.Equal(t, key, e.sk.ZCKey(), "a call without id moved sk_zckey")
				}
				if r.Err == 0 {
					require.Equal(t, n, r.N)
				}
			},
			"cork": func(t *rapid.T) {
				if closed {
					t.Skip("closed")
				}
				e.u.Setsockopt(kernel.UDP_CORK, rapid.IntRange(0, 1).Draw(t, "on"))
			},
			"segment": func(t *rapid.T) {
				if closed {
					t.Skip("closed")
				}
				e.u.Setsockopt(kernel.UDP_SEGMENT, rapid.SampledFrom([]int{0, 1000, 1400}).Draw(t, "gso"))
			},
			"complete all": func(t *rapid.T) {
				e.net.release(rapid.SampledFrom([]delivery{nic, loopback}).Draw(t, "how"))
			},
			"complete one": func(t *rapid.T) {
				b := skbtest.DrawHeld(t, &e.net.held)
				if rapid.Bool().Draw(t, "loopback") {
					e.net.deliver(b)
				} else {
					b.Free()
				}
			},
			"read": func(t *rapid.T) {
				if closed {
					t.Skip("closed")
				}
				read(t)
			},
			"fault": func(t *rapid.T) {
				site := rapid.SampledFrom([]string{kernel.FaultSockOmalloc, kernel.FaultAllocSkb}).Draw(t, "site")
				faults[site] = !faults[site]
			},
			"close": func(t *rapid.T) {
				if closed {
					t.Skip("closed")
				}
				if rapid.IntRange(0, 9).Draw(t, "rarely") != 0 {
					t.Skip("not now")
				}
				e.u.Close()
				closed = true
			},
			"": func(t *rapid.T) {
				require.Empty(t, e.h.Violations())
				require.Equal(t, ledger.Next(), e.sk.ZCKey())
			},
		})
		for k := range faults {
			faults[k] = false
		}
		if !closed {
			e.u.Setsockopt(kernel.UDP_CORK, 0)
			e.send(0, 0)
			e.net.release(nic)
			read(rt)
			require.Empty(rt, ledger.Outstanding(), "ids never notified")
		}
		e.finish(rt)
	})
}
