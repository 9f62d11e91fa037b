package tcp

// WriteSeq returns write_seq: the sequence number after the last byte
// the application has queued. sock_set_timestamping keys a TCP socket's
// SOF_TIMESTAMPING_OPT_ID records from it (sk_tskey = write_seq).
func (c *Conn) WriteSeq() uint32 { return c.writeSeq }
