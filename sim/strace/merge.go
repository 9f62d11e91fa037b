package strace

import (
	"errors"
	"fmt"
)

// Source is a log read item by item: a [Scanner], or a [Merged] set of
// strace -ff files.
type Source interface {
	Scan() bool
	Item() Item
	// Line says how far the source got: the lines read, or for Merged
	// the items.
	Line() int
	// Unterminated reports a last line without a line end.
	Unterminated() bool
	Err() error
	// ReportStarts asks for the first halves of unfinished calls as
	// items of their own ([Scanner.ReportStarts]).
	ReportStarts()
}

// Merged interleaves the logs strace -ff writes, one file per process
// (PREFIX.PID, no pid on each line), into one log in time order, each call
// and note carrying its file's pid. Their lines need absolute timestamps
// (-tt or -ttt) to be interleaved; a line without one is an error. Items
// with the same time keep the order of the files.
type Merged struct {
	files []*Scanner
	pids  []int
	heads []Item
	have  []bool
	item  Item
	lines int
	err   error
}

// NewMerged merges the scanners of -ff files whose processes are pids.
//
// Preconditions: len(files) == len(pids).
func NewMerged(files []*Scanner, pids []int) *Merged {
	return &Merged{files: files, pids: pids, heads: make([]Item, len(files)), have: make([]bool, len(files))}
}

// Scan advances to the item that happened first among the files' next
// ones.
func (m *Merged) Scan() bool {
	if m.err != nil {
		return false
	}
	pick := -1
	var at int64
	for i, sc := range m.files {
		if !m.have[i] {
			if !sc.Scan() {
				continue
			}
			m.heads[i], m.have[i] = sc.Item(), true
			m.lines++
		}
		t, ok := itemTime(m.heads[i])
		if !ok {
			m.err = fmt.Errorf("%s:%d: strace -ff logs need -tt or -ttt timestamps to be merged", sc.p.file, itemLine(m.heads[i]))
			return false
		}
		if pick < 0 || t < at {
			pick, at = i, t
		}
	}
	if pick < 0 {
		return false
	}
	m.item, m.have[pick] = m.heads[pick], false
	switch it := m.item; {
	case it.Call != nil:
		it.Call.Pid = m.pids[pick]
	case it.Start != nil:
		it.Start.Pid = m.pids[pick]
	default:
		it.Note.Pid = m.pids[pick]
	}
	return true
}

// ReportStarts asks every file for the first halves of unfinished calls
// (Scanner.ReportStarts).
func (m *Merged) ReportStarts() {
	for _, sc := range m.files {
		sc.ReportStarts()
	}
}

// itemTime is the absolute time of an item, if it has one.
func itemTime(it Item) (int64, bool) {
	var t Time
	switch {
	case it.Call != nil:
		t = it.Call.Time
	case it.Start != nil:
		t = it.Start.Time
	default:
		t = it.Note.Time
	}
	return t.Nanos, t.Kind == TimeOfDay || t.Kind == TimeEpoch
}

func itemLine(it Item) int {
	switch {
	case it.Call != nil:
		return it.Call.Line()
	case it.Start != nil:
		return it.Start.Line()
	}
	return it.Note.Line
}

// Item returns the item Scan advanced to.
func (m *Merged) Item() Item { return m.item }

// Line returns the number of items taken from the files so far.
func (m *Merged) Line() int { return m.lines }

// Unterminated is false: a cut last line is only forgiven in one log.
func (m *Merged) Unterminated() bool { return false }

// Err returns the merge error, or the files' errors in one *ErrorList.
func (m *Merged) Err() error {
	if m.err != nil {
		return m.err
	}
	var all ErrorList
	for _, sc := range m.files {
		err := sc.Err()
		var list *ErrorList
		switch {
		case errors.As(err, &list):
			for _, e := range list.Errs {
				all.add(e)
			}
			all.Dropped += list.Dropped
		case err != nil:
			return err
		}
	}
	return all.err()
}
