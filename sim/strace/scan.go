package strace

import (
	"bufio"
	"io"
	"strings"
)

// Item is one record of a log in source order: a Call (in the order calls
// completed, as in [Log.Calls]), a Note, or when [Scanner.ReportStarts]
// asked for them a Start. Exactly one is set.
type Item struct {
	Call *Call
	Note *Note
	// Start is the first half of a call strace printed unfinished
	// ("name(args <unfinished ...>"), at its line: its arguments so far
	// and a ResultUnfinished result. The whole call comes later as a
	// Call, at its resumed line, with the same first line.
	Start *Call
	// File names the log the item came from.
	File string
}

// Scanner reads an strace log one line at a time, so that a log of any
// length is read in the memory of its longest line and of the calls still
// unfinished. It yields what [Parse] would list, in source order: each
// call once complete (an unfinished call with its resumed half, or with a
// [ResultUnfinished] result when its process exits or the log ends), each
// note as it comes. Errors are collected as Parse collects them and
// returned by Err once the log is read. A line whose text after the pid
// and timestamp repeats a whole call's line of late is parsed at most
// twice: its Call is that call with its own line, pid, time and columns,
// and a [Decoder] decodes it once (see knownLine), so that a program's
// loop costs little to read whatever its length.
//
//	sc := strace.NewScanner("app.strace", f)
//	for sc.Scan() {
//		it := sc.Item()
//		...
//	}
//	if err := sc.Err(); err != nil { ... }
type Scanner struct {
	p      *parser
	in     *bufio.Reader
	lineNo int
	stitch *stitched
	queue  []Item
	next   int
	item   Item
	done   bool
	ioErr  error
	// open is set when the last line read had no line end.
	open bool
}

// NewScanner returns a Scanner of the log read from r; name is used in
// error positions.
func NewScanner(name string, r io.Reader) *Scanner {
	return &Scanner{p: &parser{log: &Log{File: name}, file: name, pending: map[int]*pending{}, mem: carver{reuse: true}},
		in: bufio.NewReaderSize(r, 64<<10)}
}

// ReportStarts makes Scan yield, as Items of their own, the first halves
// of unfinished calls (those whose arguments so far parse), so that a
// replay can start a call where it began: [Decoder.Start] decodes a
// send's ([StartDecoded]), and the line, pid and time of any other tell
// where it began.
func (s *Scanner) ReportStarts() { s.p.starts = true }

// Scan advances to the next item and reports whether there is one.
func (s *Scanner) Scan() bool {
	for s.next >= len(s.queue) {
		if s.done {
			return false
		}
		s.queue, s.next = s.queue[:0], 0
		s.read()
	}
	s.item = s.queue[s.next]
	s.next++
	return true
}

// Item returns the item Scan advanced to. Its Call or Note is the
// Scanner's until the next Scan, which reuses their memory (the slices of
// the Call's argument values too): a caller that keeps one copies what it
// keeps, as a decoded [Op] does. Strings stay valid.
func (s *Scanner) Item() Item { return s.item }

// Line returns the number of the last line read.
func (s *Scanner) Line() int { return s.lineNo }

// Unterminated reports whether the log's last line has no line end, as
// when strace or the traced program was killed while it was written.
func (s *Scanner) Unterminated() bool { return s.done && s.open }

// Err returns the read error, or once the log is read the *ErrorList of
// its malformed lines, as Parse does; nil when there were none.
func (s *Scanner) Err() error {
	if s.ioErr != nil {
		return s.ioErr
	}
	if !s.done {
		return nil
	}
	return s.p.errs.err()
}

// read handles the next source line (or the end of the log) and queues
// what it completed.
func (s *Scanner) read() {
	text, err := s.in.ReadString('\n')
	if err != nil && err != io.EOF {
		s.ioErr, s.done = err, true
		return
	}
	if text != "" {
		s.open = !strings.HasSuffix(text, "\n")
		s.lineNo++
		s.stitch = s.p.line(strings.TrimRight(strings.TrimSuffix(text, "\n"), "\r"), s.lineNo, s.stitch)
	}
	if err == io.EOF {
		s.p.end(s.stitch)
		s.done = true
	}
	s.collect()
}

// collect moves what the parser completed into the queue, starts and
// calls before notes: a line starts or completes at most one call, or
// flushes an exiting
// process's unfinished call just before its exit note. The parser's lists
// keep their storage for the next line: read runs once the queue is
// consumed, when the items it handed out are no longer the caller's.
func (s *Scanner) collect() {
	log := s.p.log
	for i := range s.p.started {
		s.queue = append(s.queue, Item{Start: &s.p.started[i], File: log.File})
	}
	s.p.started = s.p.started[:0]
	for i := range log.Calls {
		s.queue = append(s.queue, Item{Call: &log.Calls[i], File: log.File})
	}
	for i := range log.Notes {
		s.queue = append(s.queue, Item{Note: &log.Notes[i], File: log.File})
	}
	log.Calls, log.Notes = log.Calls[:0], log.Notes[:0]
}
