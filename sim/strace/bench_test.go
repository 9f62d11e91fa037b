package strace

import (
	"bytes"
	"os"
	"testing"
)

// bigLog is the unfiltered udp4 capture repeated to about 1.4 MB.
func bigLog(b *testing.B) []byte {
	src, err := os.ReadFile("testdata/udp4_full_f.log")
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(src, 10)
}

func BenchmarkParse(b *testing.B) {
	src := bigLog(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("big.log", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseDecode(b *testing.B) {
	src := bigLog(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		log, err := Parse("big.log", src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Decode(log); err != nil {
			b.Fatal(err)
		}
	}
}
