package interp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// longScenario is a program that makes sends MSG_ZEROCOPY sends of size
// bytes on one socket, reading the error queue every 8 sends and letting
// the network settle every 32, as a real sender paces itself.
func longScenario(typ string, sends, size int) []byte {
	var b strings.Builder
	b.WriteString("device eth0 nic\n")
	fmt.Fprintf(&b, "socket s AF_INET %s via=eth0 peer_read=auto\n", typ)
	b.WriteString("setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0\nconnect s => 0\n")
	for i := 1; i <= sends; i++ {
		fmt.Fprintf(&b, "send s %d MSG_ZEROCOPY => %d\n", size, size)
		if i%8 == 0 {
			b.WriteString("recvmsg s MSG_ERRQUEUE\n")
		}
		if i%32 == 0 {
			b.WriteString("settle\n")
		}
	}
	b.WriteString("settle\n")
	return []byte(b.String())
}

// sends is how many sends a long scenario makes. The invariant check after
// a step examines what the step touched, so the cost of a run grows with
// its length, not faster; internal/kbench has the benchmarks of the
// workloads the simulator is compared with the live kernel on.
const sends = 2000

// repeatScenario is longScenario written with repeat: the same steps from
// a file of a few lines. Sends is a multiple of 8.
func repeatScenario(typ string, sends, size int) []byte {
	return []byte(fmt.Sprintf(`device eth0 nic
socket s AF_INET %s via=eth0 peer_read=auto
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
repeat %d {
  repeat 4 {
    repeat 8 { send s %d MSG_ZEROCOPY => %d }
    recvmsg s MSG_ERRQUEUE
  }
  settle
}
repeat %d {
  repeat 8 { send s %d MSG_ZEROCOPY => %d }
  recvmsg s MSG_ERRQUEUE
}
settle
`, typ, sends/32, size, size, sends%32/8, size, size))
}

// benchmarkLong runs a long scenario b.N times and reports simulated sends
// per second of wall time and heap allocations per send.
func benchmarkLong(b *testing.B, typ string, size int) {
	benchmarkSrc(b, typ, longScenario(typ, sends, size))
}

func benchmarkSrc(b *testing.B, typ string, src []byte) {
	tr, err := Run("long.zcs", src, Options{Seed: 1})
	if err != nil || !tr.OK() {
		b.Fatalf("the long %s scenario fails: %v", typ, err)
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run("long.zcs", src, Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	total := float64(b.N) * sends
	b.ReportMetric(total/b.Elapsed().Seconds(), "sends/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/send")
}

// BenchmarkLongTCP: 2000 zerocopy sends of 16 KiB over a NIC.
func BenchmarkLongTCP(b *testing.B) { benchmarkLong(b, "SOCK_STREAM", 16384) }

// BenchmarkLongUDP: 2000 zerocopy datagrams of 1400 bytes over a NIC.
func BenchmarkLongUDP(b *testing.B) { benchmarkLong(b, "SOCK_DGRAM", 1400) }

// BenchmarkRepeatUDP is BenchmarkLongUDP from a repeat: running a loop
// body costs what running its unrolled statements does.
func BenchmarkRepeatUDP(b *testing.B) {
	benchmarkSrc(b, "SOCK_DGRAM", repeatScenario("SOCK_DGRAM", sends, 1400))
}
