package kernel

// TCPInfoField places one field of struct tcp_info: Size bytes at Offset,
// little-endian, then shifted right by Shift and masked to Bits when
// Bits is set (a bit-field).
type TCPInfoField struct {
	Key          string
	Offset, Size int
	Shift, Bits  uint
}

// TCPInfoSize is sizeof(struct tcp_info) on Linux 6.18 (measured: the
// optlen getsockopt writes back for a larger buffer), the buffer a
// program passes.
const TCPInfoSize = 280

// TCPInfoFields are the fields of struct tcp_info the model offers
// (tcp.Conn.Info), where include/uapi/linux/tcp.h puts them.
var TCPInfoFields = []TCPInfoField{
	{Key: "tcpi_state", Offset: 0, Size: 1},
	{Key: "tcpi_probes", Offset: 3, Size: 1},
	{Key: "tcpi_backoff", Offset: 4, Size: 1},
	{Key: "tcpi_options", Offset: 5, Size: 1},
	{Key: "tcpi_rcv_wscale", Offset: 6, Size: 1, Shift: 4, Bits: 4},
	{Key: "tcpi_rto", Offset: 8, Size: 4},
	{Key: "tcpi_snd_mss", Offset: 16, Size: 4},
	{Key: "tcpi_unacked", Offset: 24, Size: 4},
	{Key: "tcpi_snd_cwnd", Offset: 80, Size: 4},
	{Key: "tcpi_total_retrans", Offset: 100, Size: 4},
	{Key: "tcpi_bytes_received", Offset: 128, Size: 8},
	{Key: "tcpi_notsent_bytes", Offset: 144, Size: 4},
	{Key: "tcpi_delivered", Offset: 192, Size: 4},
}

// Decode reads the field f out of the first n bytes of a struct tcp_info
// the kernel wrote into b; ok is false when they do not hold it.
func (f TCPInfoField) Decode(b []byte, n int) (v uint64, ok bool) {
	if f.Offset+f.Size > min(n, len(b)) {
		return 0, false
	}
	for i := f.Size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[f.Offset+i])
	}
	v >>= f.Shift
	if f.Bits > 0 {
		v &= 1<<f.Bits - 1
	}
	return v, true
}
