package strace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// errqLine is an error-queue read of the notifications [lo, hi].
func errqLine(lo, hi int) string {
	return fmt.Sprintf(`recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=5, ee_type=0, ee_code=1, ee_info=%d, ee_data=%d}}], msg_controllen=48, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0`, lo, hi)
}

// Lines of one shape whose numbers differ come out of a Scanner as Parse
// lists them, whether they differ in whole integers (taken from the
// shape's line) or elsewhere (parsed): in a string, a hex, signed or
// octal number, a named argument, a result, a -T duration, a comment.
func TestScannerShapedLines(t *testing.T) {
	var lines []string
	for i := range 40 {
		lo := i * i * 7
		lines = append(lines, errqLine(lo, lo+i), fmt.Sprintf("%d 12:00:%02d.%06d ", 100+i, i, i*31)+errqLine(lo+1, lo+i*100),
			fmt.Sprintf(`sendto(4, "zz%d"..., %d, MSG_ZEROCOPY, NULL, 0) = %d`, i, 4096+i, 4096+i),
			fmt.Sprintf(`read(3, "x"..., 0%d) = -%d <0.0000%d>`, i%8, i, i),
			fmt.Sprintf(`mmap(0x7f%dab, %d, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f%d000`, i, i*4096, i),
			fmt.Sprintf(`clone(child_stack=NULL, flags=CLONE_VM, exit_signal=%d) = %d`, i, 200+i),
			fmt.Sprintf(`setsockopt(4, SOL_SOCKET, SO_SNDBUF, [%d], 4) = 0 /* %d */`, i*1000, i),
			fmt.Sprintf(`setsockopt(4, SOL_SOCKET, SO_SNDBUF, [%d*%d], 4) = 0`, i, 1024),
			fmt.Sprintf(`poll([{fd=%d, events=POLLIN}], 1, %d) = 1 ([{fd=%d, revents=POLLIN}])`, 3+i%2, i, 3+i%2),
			fmt.Sprintf(`accept(3, NULL, NULL) = %d<TCP:[127.0.0.1:8000->127.0.0.1:%d]>`, 5+i, 40000+i),
			fmt.Sprintf(`getsockopt(4, SOL_TCP, TCP_INFO, {tcpi_state=TCP_ESTABLISHED, tcpi_rto=%d, ...}, [%d => %d]) = 0`, 200000+i, 232, 104+i))
	}
	src := []byte(strings.Join(lines, "\n") + "\n")
	log, err := Parse("fuzz", src)
	checkScanner(t, src, log, err)
}

// A Scanner remembers a shape the second time a parsed line has it, and
// lists a line of it whose numbers differ only in whole integers from
// the shape's line without parsing it; one that differs elsewhere, or
// not at all, it leaves to the parse.
func TestShapeApplies(t *testing.T) {
	sc := NewScanner("t.log", strings.NewReader(errqLine(0, 7)+"\n"+errqLine(8, 15)+"\n"))
	for sc.Scan() {
	}
	require.NoError(t, sc.Err())
	p := sc.p
	text := errqLine(96, 1003)
	shaped := p.shapes.of(text)
	require.NotNil(t, shaped, "the shape of the two error-queue reads is remembered")
	require.True(t, p.apply(shaped, text, 3, 3, 77, Time{}), "a read of other notifications is listed from the shape")
	got := p.log.Calls[len(p.log.Calls)-1].Clone()
	want, err := Parse("t.log", []byte("\n\n77 "+text+"\n"))
	require.NoError(t, err)
	require.Equal(t, want.Calls[0], got)

	for _, other := range []string{
		errqLine(8, 15), // the shape's own line
		strings.Replace(errqLine(8, 15), "ee_origin=5", "ee_origin=6", 1) + " <0.000012>", // another shape
		strings.Replace(errqLine(8, 15), "iov_base=\"\"", "iov_base=\"1\"", 1),
	} {
		if t2 := p.shapes.of(other); t2 != nil {
			require.False(t, p.apply(t2, other, 0, 4, 0, Time{}), "%s", other)
		}
	}
	other := strings.Replace(errqLine(8, 15), "ee_errno=0", "ee_errno=0x1", 1)
	require.Nil(t, p.shapes.of(other), "a hex number is another shape")
	other = strings.Replace(errqLine(8, 15), "msg_iovlen=1", "msg_iovlen=-1", 1)
	require.Nil(t, p.shapes.of(other), "a signed number is another shape")
}
