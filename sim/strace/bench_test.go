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

// BenchmarkScanDecode reads the log as the replay does: line by line
// with a Scanner, each call decoded as it comes.
func BenchmarkScanDecode(b *testing.B) {
	src := bigLog(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		sc := NewScanner("big.log", bytes.NewReader(src))
		dec := NewDecoder("big.log")
		for sc.Scan() {
			if c := sc.Item().Call; c != nil {
				dec.Op(c)
			}
		}
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
	}
}
