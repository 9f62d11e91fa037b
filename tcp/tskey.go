package tcp

// WriteSeq returns write_seq: the sequence number after the last byte
// the application has queued. sock_set_timestamping keys a TCP socket's
// SOF_TIMESTAMPING_OPT_ID records from it when SOF_TIMESTAMPING_OPT_ID_TCP
// is set (sk_tskey = write_seq, v6.2), from snd_una otherwise; the two
// differ only while sent data is unacknowledged.
func (c *Conn) WriteSeq() uint32 { return c.writeSeq }

// SndUna returns snd_una: the first sequence number not yet acknowledged.
func (c *Conn) SndUna() uint32 { return c.sndUna }
