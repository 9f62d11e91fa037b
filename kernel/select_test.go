package kernel

import "testing"

// do_select's sets: POLLHUP leaves a descriptor only in readfds, POLLERR
// in readfds and writefds, POLLPRI only in exceptfds, POLLNVAL in all;
// a set not asked for is never left.
func TestSelectReady(t *testing.T) {
	all := SelectIn | SelectOut | SelectEx
	for _, tt := range []struct {
		mask  PollEvents
		asked SelectSets
		want  SelectSets
	}{
		{POLLHUP, all, SelectIn},
		{POLLERR, all, SelectIn | SelectOut},
		{POLLPRI, all, SelectEx},
		{POLLRDNORM | POLLWRBAND, all, SelectIn | SelectOut},
		{POLLERR, SelectEx, 0},
		{POLLIN | POLLOUT, SelectOut, SelectOut},
		{POLLNVAL, all, all},
		{POLLRDHUP, all, 0},
	} {
		if got := SelectReady(tt.mask, tt.asked); got != tt.want {
			t.Errorf("SelectReady(%v, %v) = %v, want %v", tt.mask, tt.asked, got, tt.want)
		}
	}
	if got := (SelectIn | SelectEx).String(); got != "in|except" {
		t.Errorf("String = %q", got)
	}
}
