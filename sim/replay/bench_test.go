package replay_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zcsim/zcsim/sim/replay"
)

// genLog writes a log of about n calls of a traced loopback TCP
// connection: rounds of eight 4096-byte zerocopy sends, a read of what
// they sent on the accepted end, and two error-queue reads (the round's
// notification, then EAGAIN).
func genLog(n int) []byte {
	var b strings.Builder
	b.WriteString(tcpHead)
	for lo, calls := 0, 7; calls < n; lo, calls = lo+8, calls+11 {
		b.WriteString(sends4(8))
		b.WriteString(`recvfrom(5, "zz"..., 65536, 0, NULL, NULL) = 32768` + "\n")
		b.WriteString(errq(lo, lo+7))
		b.WriteString(errqEAGAIN)
	}
	return []byte(b.String())
}

// The log the benchmarks replay, written to a file on request, for timing
// zcsim replay itself (docs/performance.md):
//
//	go test ./sim/replay -run TestWriteBenchLog -replay.benchlog FILE -replay.benchlog.calls N
var (
	benchLog      = flag.String("replay.benchlog", "", "TestWriteBenchLog writes the benchmarks' log to this `file`")
	benchLogCalls = flag.Int("replay.benchlog.calls", 1_000_000, "the `number` of calls, about, of the log -replay.benchlog writes")
)

// TestWriteBenchLog writes genLog's log of about -replay.benchlog.calls
// calls to the file -replay.benchlog names; it skips without that flag.
func TestWriteBenchLog(t *testing.T) {
	if *benchLog == "" {
		t.Skip("no -replay.benchlog file to write")
	}
	if err := os.WriteFile(*benchLog, genLog(*benchLogCalls), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkReplay replays generated logs of 10^4 to 10^6 calls, the
// report streamed out as zcsim replay does, and reports the calls
// replayed per second of wall time (calls/s) and per second of the CPU
// time the process used on all cores, garbage collection included
// (calls/cpu-s: what one core would do, whatever else loads the machine),
// and the process's peak RSS (on Linux; it includes the generated log,
// which the command does not hold: it reads its file line by line).
func BenchmarkReplay(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		src := genLog(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			calls := 0
			cpu := cpuSeconds()
			for b.Loop() {
				rep, err := replay.Replay("gen.log", src, replay.Options{Out: discard{}})
				if err != nil || !rep.OK() {
					b.Fatalf("replay: %v %+v", err, rep.Divergences())
				}
				calls += rep.Summary.Calls
			}
			b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
			if used := cpuSeconds() - cpu; used > 0 {
				b.ReportMetric(float64(calls)/used, "calls/cpu-s")
			}
			b.ReportMetric(peakRSS()/(1<<20), "peak-RSS-MB")
		})
	}
}

// discard is a report Writer that keeps nothing, as a replay streaming
// its report out does.
type discard struct{}

func (discard) Begin(replay.Config) error { return nil }
func (discard) Call(replay.Call) error    { return nil }
func (discard) End(*replay.Report) error  { return nil }

// BenchmarkReplayFile is BenchmarkReplay on the path zcsim replay takes:
// the generated log written to a file, read from it twice (ReplayFile),
// and every call's line of the text report rendered (to io.Discard).
func BenchmarkReplayFile(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "gen.log")
			if err := os.WriteFile(file, genLog(n), 0o644); err != nil {
				b.Fatal(err)
			}
			calls := 0
			cpu := cpuSeconds()
			for b.Loop() {
				out := bufio.NewWriterSize(io.Discard, 64<<10)
				rep, err := replay.ReplayFile(file, replay.Options{Out: replay.NewTextWriter(out)})
				if err != nil || !rep.OK() {
					b.Fatalf("replay: %v %+v", err, rep)
				}
				calls += rep.Summary.Calls
			}
			b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
			if used := cpuSeconds() - cpu; used > 0 {
				b.ReportMetric(float64(calls)/used, "calls/cpu-s")
			}
		})
	}
}
