// Package bugs is zcsim's catalog of real kernel bugs the model can
// replay: for each, what went wrong, the commit that fixed it, the kernels
// it affected, the profile switch (kernel.Bug) that re-introduces it, what
// a run with the switch on must detect, and a scenario file that is a
// lesson of its own. The scenario files are embedded, so the catalog works
// wherever the binary runs.
//
// # Contract
//
// Every entry's scenario runs clean on its profile: every expectation
// holds and no invariant breaks. With the entry's bug switched on
// (Profile.Switch), the same scenario must show the entry's symptom: a
// violation of its Rule, or, for a bug whose symptom is a wrong result
// rather than a broken invariant (Rule 0), a mismatch between an
// expectation and what the call returned. Check runs both and says
// whether the entry behaves; the package's tests check every entry.
//
// An entry whose bug lives where the scenario language cannot reach would
// have no scenario; its Elsewhere would name the test that replays it
// instead, and Check skips it, saying so. Every entry has a scenario today.
//
// Scenario paths ([Entry.Path]) are relative to the repository root, so a
// path the catalog prints runs as printed there: zcsim run sim/bugs/….
//
// # Linux correspondence
//
// The ids follow the research notes: B1…B23 are bugs fixed in merged
// kernels, R1…R7 the fixes made between the RFC v2 patch set and its
// merge, Z1… flaws that review found in proposed patches (Z1's series was
// never merged; Z2's patch was fixed before it was). The prose is ours; docs/bugs.md has one paragraph per entry.
package bugs

import (
	"embed"
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
)

//go:embed *.zcs
var files embed.FS

// Entry is one replayable bug.
type Entry struct {
	// ID is the catalog id: "B6", "R1".
	ID string
	// Title says in a few words what went wrong.
	Title string
	// Commit is the fixing commit (short hash and subject where known).
	Commit string
	// Kernels names the kernels that had the bug.
	Kernels string
	// Bug is the profile switch that re-introduces the bug.
	Bug kernel.Bug
	// Rule is the invariant a run with the bug violates; 0 means the
	// symptom is an expectation mismatch instead.
	Rule kernel.Rule
	// File is the scenario's file name in this package; empty when the
	// bug cannot be replayed from a scenario.
	File string
	// Elsewhere, for an entry without a scenario, says why and which test
	// replays the bug instead.
	Elsewhere string
}

// Dir is where the scenario files live, relative to the repository root.
const Dir = "sim/bugs"

// Path is the scenario's path relative to the repository root
// ("sim/bugs/r1-abort-gap.zcs"), or "" for an entry without a scenario.
func (e Entry) Path() string {
	if e.File == "" {
		return ""
	}
	return Dir + "/" + e.File
}

// Symptom says what a run with the bug switched on must detect.
func (e Entry) Symptom() string {
	if e.Rule == 0 {
		return "expectation mismatch"
	}
	return "violation of invariant " + e.Rule.String()
}

// Source returns the scenario file's text, or nil for an entry without a
// scenario.
func (e Entry) Source() []byte {
	if e.File == "" {
		return nil
	}
	src, err := files.ReadFile(e.File)
	if err != nil {
		panic(fmt.Sprintf("bugs: %s: scenario %s is not embedded", e.ID, e.File))
	}
	return src
}

// Run runs the entry's scenario with its bug switched on or off. The trace
// names the file by its Path. An entry without a scenario is an error that
// says where the bug is replayed instead.
func (e Entry) Run(on bool, seed uint64) (*sim.Trace, error) {
	if e.File == "" {
		return nil, fmt.Errorf("bugs: %s has no scenario: %s", e.ID, e.Elsewhere)
	}
	opts := interp.Options{Seed: seed}
	if on {
		opts.Bugs = []kernel.Bug{e.Bug}
	} else {
		opts.Off = []kernel.Bug{e.Bug}
	}
	return interp.Run(e.Path(), e.Source(), opts)
}

// entries is the catalog, in id order (R before B before Z, then by
// number).
var entries = []Entry{
	{"R1", "an aborted send kept its id: a gap in the notification ids", "RFC v2 (msg_zerocopy_put_abort)",
		"RFC v1", kernel.BugAbortGap, kernel.RuleIDs, "r1-abort-gap.zcs", ""},
	{"R2", "the uarg held no socket reference: completion after close used a freed socket", "RFC v2 (sock_hold in msg_zerocopy_alloc)",
		"RFC v1", kernel.BugNoSockRef, kernel.RuleRefcount, "r2-no-sock-ref.zcs", ""},
	{"R3", "realloc failed the send instead of allocating a new uarg", "RFC v2 (msg_zerocopy_realloc falls back to alloc)",
		"RFC v1", kernel.BugReallocFails, 0, "r3-realloc-fails.zcs", ""},
	{"R4", "the second uarg allocation after waiting for memory was not checked", "RFC v2 (\"fix: in tcp, check return value of second allocation attempt\")",
		"RFC v1", kernel.BugUncheckedRealloc, kernel.RuleRefcount, "r4-unchecked-realloc.zcs", ""},
	{"R5", "notifications charged to sk_wmem_alloc instead of optmem", "RFC v2 (sock_omalloc)",
		"RFC v1", kernel.BugNotifyWmem, 0, "r5-notify-wmem.zcs", ""},
	{"R6", "locked pages limited per process instead of per user", "RFC v2 (user_struct->locked_vm)",
		"RFC v1", kernel.BugMemlockPerProcess, 0, "r6-memlock-per-process.zcs", ""},
	{"R7", "16-bit notification ids", "RFC v2 (u32 id and sk_zckey)",
		"RFC v1", kernel.BugID16, kernel.RuleIDs, "r7-id16.zcs", ""},
	{"B2", "skb_copy_ubufs kept the uarg of an skb without frags", "b90ddd568792",
		"v4.14 (fixed in v4.15-rc)", kernel.BugCopyUbufsNoFrags, kernel.RuleRxPages, "b02-copy-ubufs-no-frags.zcs", ""},
	{"B3", "tpacket_snd skbs were not zerocopy: a clone read a ring frame after it was given back", "5cd8d46ea156 \"packet: copy user buffers before orphan or clone\"",
		"before v4.20", kernel.BugRingNoCopy, kernel.RuleNotifyAfterPages, "b03-packet-ring-no-copy.zcs", ""},
	{"B4", "a TX ring skb's nouarg pointer was dereferenced as a ubuf_info", "185ce5c38ea7 \"net: test nouarg before dereferencing zerocopy pointers\"",
		"v4.20 to v5.1", kernel.BugNoUargDeref, kernel.RuleRefcount, "b04-nouarg-deref.zcs", ""},
	{"B5", "an acknowledged skb still cloned lost its zerocopy state to the tx skb cache", "\"tcp: do not recycle cloned skbs\" (May 2019, fixes 4f661542a402; hash not found)",
		"v5.1 to v5.2-rc", kernel.BugRecycleCloned, kernel.RuleNotifyAfterPages, "b05-recycle-cloned.zcs", ""},
	{"B6", "corked UDP appends took a uarg reference nobody dropped", "100f6d8e0990 \"net: correct zerocopy refcnt with udp MSG_MORE\"",
		"v5.0, v5.1", kernel.BugUDPMoreRefcnt, kernel.RuleRefcount, "b06-udp-more-refcnt.zcs", ""},
	{"B7", "a uarg born on a corked append lost its reference", "522924b58308 \"net: correct udp zerocopy refcnt also when zerocopy only on append\"",
		"v5.2-rc3 to v5.2-rc5", kernel.BugUDPAppendRefcnt, kernel.RuleRefcount, "b07-udp-append-refcnt.zcs", ""},
	{"B8", "tcp_mmap took the socket lock inside mmap_sem: a lock inversion", "05255b823a61 \"tcp: add TCP_ZEROCOPY_RECEIVE support for zerocopy receive\"",
		"the seed series (net-next, April 2018)", kernel.BugTCPMmapLockOrder, kernel.RuleLockOrder, "b08-tcp-mmap-lock-order.zcs", ""},
	{"B10", "vhost_net put a ubuf again after tun_sendmsg failed", "01e31bea7e62 \"vhost_net: fix ubuf refcount incorrectly when sendmsg fails\"",
		"v4.14 to v5.10", kernel.BugLegacyDoublePut, kernel.RuleRefcount, "b10-legacy-double-put.zcs", ""},
	{"B11", "COPIED read after the notification record overwrote it", "3bdd5ee0ec8c \"skbuff: fix incorrect msg_zerocopy copy notifications\"",
		"v5.12", kernel.BugCopiedAfterOverwrite, kernel.RuleCopied, "b11-copied-after-overwrite.zcs", ""},
	{"B14", "a TX timestamp clone kept the uarg: socket leak cycle", "50749f2dd685 \"tcp/udp: Fix memleaks of sk and zerocopy skbs with TX timestamp.\"",
		"v4.14 to v6.2", kernel.BugTstampLeak, kernel.RuleRefcount, "b14-tstamp-leak.zcs", ""},
	{"B15", "skb_copy_ubufs overflowed MAX_SKB_FRAGS for BIG TCP skbs", "7e692df39336 \"tcp: fix skb_copy_ubufs() vs BIG TCP\"",
		"v5.19 to v6.3", kernel.BugCopyUbufsOrder0, kernel.RuleBounds, "b15-copy-ubufs-order0.zcs", ""},
	{"B16", "skb_segment read the frags before orphaning them", "2ea35288c83b \"skbuff: skb_segment, Call zero copy functions before using skbuff frags\"",
		"before v6.6", kernel.BugSegmentStaleFrags, kernel.RuleRefcount, "b16-segment-stale-frags.zcs", ""},
	{"B18", "payload copied into the TCP linear area reported as not copied", "\"tcp: place all zerocopy payload in frags\" (v4.18; hash not found)",
		"v4.14 to v4.17", kernel.BugTCPLinear, kernel.RuleCopied, "b18-tcp-linear.zcs", ""},
	{"B20", "a vhost ubuf's uninitialised mmp was unaccounted", "\"sock: fix zerocopy panic in mem accounting\" (2017; hash not verified)",
		"the RFC v2 and the v4.14 merge window", kernel.BugLegacyUnaccount, kernel.RuleAccounting, "b20-legacy-unaccount.zcs", ""},
	{"B22", "skb_tx_error completed the uarg through a clone", "not identified (the clone guard of skb_tx_error)",
		"before the guard", kernel.BugTxErrorClone, kernel.RuleNotifyAfterPages, "b22-tx-error-clone.zcs", ""},
	{"B23", "a TX timestamp clone whose frags could not be copied was leaked", "\"net: fix skb leak in __skb_tstamp_tx()\" (May 2023; hash not found)",
		"v6.3 to v6.4-rc", kernel.BugTstampCloneLeak, kernel.RuleRefcount, "b23-tstamp-clone-leak.zcs", ""},
	{"Z1", "SCM_ZC_NOTIFICATION lost the completions it could not copy back", "review of the v7 series \"net: A lightweight zero-copy notification\" (not merged)",
		"the v7 series (2024)", kernel.BugZcCmsgLoss, kernel.RuleNotifyOnce, "z1-zc-cmsg-loss.zcs", ""},
	{"Z2", "TX ring pending counters summed as signed values: a ring busy for ever", "review of \"packet: use percpu mmap tx frame pending refcount\" (respun unsigned before v3.14)",
		"the posted patch (2014)", kernel.BugPendingSigned, kernel.RuleAccounting, "z2-packet-pending-signed.zcs", ""},
}

// Catalog returns every entry in catalog order.
func Catalog() []Entry { return append([]Entry(nil), entries...) }

// Lookup finds an entry by id, ignoring case ("b6" is "B6"), or by the
// name of its bug switch ("udp-more-refcnt").
func Lookup(id string) (Entry, bool) {
	for _, e := range entries {
		if strings.EqualFold(e.ID, id) || string(e.Bug) == id {
			return e, true
		}
	}
	return Entry{}, false
}

// Verdict is the result of checking one entry both ways.
type Verdict struct {
	Entry Entry
	// On and Off summarize the two runs: violations by rule, mismatches.
	On, Off Tally
	// OK is true when the run with the bug showed the entry's symptom and
	// the run without it was clean.
	OK bool
	// Skipped, for an entry without a scenario, says why nothing ran (OK
	// is then false, and On and Off are empty).
	Skipped string
}

// Tally counts what a run found.
type Tally struct {
	// Violations counts violations by rule name.
	Violations map[string]int `json:"violations"`
	// Mismatches counts unmet expectations.
	Mismatches int `json:"mismatches"`
}

// String renders a tally: "clean", or "2 refcount, 1 mismatch".
func (t Tally) String() string {
	var parts []string
	for _, r := range ruleOrder() {
		if n := t.Violations[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
	}
	if t.Mismatches > 0 {
		parts = append(parts, fmt.Sprintf("%d mismatch", t.Mismatches))
	}
	if len(parts) == 0 {
		return "clean"
	}
	return strings.Join(parts, ", ")
}

func ruleOrder() []string {
	var out []string
	for _, r := range kernel.Rules() {
		out = append(out, r.String())
	}
	return out
}

func tally(t *sim.Trace) Tally {
	out := Tally{Violations: map[string]int{}}
	for _, r := range t.Records {
		switch {
		case r.Violation != nil:
			out.Violations[r.Violation.Rule]++
		case r.Mismatch != nil:
			out.Mismatches++
		}
	}
	return out
}

// Check runs the entry twice, bug on and bug off, and judges both runs.
// An error means the embedded scenario does not parse: a broken catalog.
func (e Entry) Check(seed uint64) (Verdict, error) {
	if e.File == "" {
		return Verdict{Entry: e, Skipped: e.Elsewhere}, nil
	}
	on, err := e.Run(true, seed)
	if err != nil {
		return Verdict{}, err
	}
	off, err := e.Run(false, seed)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Entry: e, On: tally(on), Off: tally(off)}
	detected := v.On.Mismatches > 0
	if e.Rule != 0 {
		detected = v.On.Violations[e.Rule.String()] > 0
	}
	v.OK = detected && off.OK()
	return v, nil
}
