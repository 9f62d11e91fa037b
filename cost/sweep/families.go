package sweep

import (
	"embed"
	"fmt"
	"path"
)

//go:embed families/*.zcs
var familyFiles embed.FS

// mib is a mebibyte.
const mib = 1 << 20

// builtin is a built-in family before its template is parsed.
type builtin struct {
	name, file, about string
	variants          []string
	sizes             []int
	total, every      int
	seeds             []Reference
}

var builtins = []builtin{
	{
		name: "netperf", file: "netperf.zcs",
		about:    "seed 000: netperf TCP_STREAM over a NIC, copy vs MSG_ZEROCOPY; the seed's zc/std cycles: process 41% to 8%, system 79% to 61% from 4 KB to 1 MB writes",
		variants: []string{"copy", "zerocopy"}, sizes: DefaultSizes(), total: 8 * mib, every: 32,
		seeds: []Reference{
			{"zerocopy", 4 << 10, 41, 79}, {"zerocopy", 16 << 10, 18, 67}, {"zerocopy", 64 << 10, 11, 64},
			{"zerocopy", 256 << 10, 10, 63}, {"zerocopy", 1 << 20, 8, 61},
		},
	},
	{
		name: "loopback", file: "loopback.zcs",
		about:    "seed 004: snd_zerocopy_lo over loopback TCP; the seed's throughput gives zerocopy 125% of copy's cost per byte as the kernel is, 44% with the RFC's receive switch (64 KB sends)",
		variants: []string{"copy", "zerocopy", "zerocopy-plain"}, sizes: DefaultSizes(), total: 8 * mib, every: 32,
		// 109908 copied vs 87636 zerocopy sends in the same time; with
		// the switch 106364 vs 239792. One CPU does all: cost per byte
		// is the inverse of throughput.
		seeds: []Reference{{"zerocopy", 64 << 10, 125.4, 0}, {"zerocopy-plain", 64 << 10, 44.4, 0}},
	},
	{
		name: "zc-cmsg-1", file: "zc-cmsg.zcs",
		about:    "seed 003, cfg_notification_limit = 1: completions by recvmsg(MSG_ERRQUEUE) after every send vs SCM_ZC_NOTIFICATION on every send; the seed's TCP v4 throughput +17.42%, i.e. 85% of the cost",
		variants: []string{"errqueue", "cmsg"}, sizes: []int{4 << 10, 16 << 10, 64 << 10}, total: 4 * mib, every: 1,
		seeds: []Reference{{"cmsg", 64 << 10, 85.2, 0}},
	},
	{
		name: "zc-cmsg-32", file: "zc-cmsg.zcs",
		about:    "seed 003, cfg_notification_limit = 32: one collection per 32 sends either way; the seed's TCP v4 throughput +6.00%, i.e. 94% of the cost",
		variants: []string{"errqueue", "cmsg"}, sizes: []int{4 << 10, 16 << 10, 64 << 10}, total: 4 * mib, every: 32,
		seeds: []Reference{{"cmsg", 64 << 10, 94.3, 0}},
	},
}

// Families are the built-in families, the seeds' comparisons.
func Families() []*Family {
	out := make([]*Family, len(builtins))
	for i, b := range builtins {
		src, err := familyFiles.ReadFile(path.Join("families", b.file))
		if err != nil {
			panic(fmt.Sprintf("sweep: the built-in family %s has no template: %v", b.name, err))
		}
		f := &Family{Name: b.name, About: b.about, Variants: b.variants, Sizes: b.sizes, Total: b.total, Every: b.every, Seeds: b.seeds}
		if err := f.parse("families/"+b.file, string(src)); err != nil {
			panic(fmt.Sprintf("sweep: the built-in family %s: %v", b.name, err))
		}
		out[i] = f
	}
	return out
}

// Lookup is the built-in family named name.
func Lookup(name string) (*Family, bool) {
	for _, f := range Families() {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}
