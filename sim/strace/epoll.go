package strace

// EpollCreate is epoll_create(size) or epoll_create1(flags); its result
// is the new instance's descriptor. CloExec is EPOLL_CLOEXEC.
type EpollCreate struct {
	Header
	CloExec bool `json:"cloexec,omitempty"`
}

// EpollCtl is epoll_ctl(epfd, op, fd, event): Op is EPOLL_CTL_ADD,
// EPOLL_CTL_MOD or EPOLL_CTL_DEL as strace names it, Events the event
// names of the struct epoll_event and Data its data (the u64 strace
// shows, "data={u32=5, u64=5}"); HasEvent is false for a NULL event (a
// DEL) and HasData for an event whose data strace did not show.
type EpollCtl struct {
	Header
	Epfd     int      `json:"epfd"`
	Op       string   `json:"op"`
	Fd       int      `json:"fd"`
	Events   []string `json:"events,omitempty"`
	Data     uint64   `json:"data"`
	HasEvent bool     `json:"has_event,omitempty"`
	HasData  bool     `json:"has_data,omitempty"`
}

// EpollWait is epoll_wait(epfd, events, maxevents, timeout),
// epoll_pwait(..., timeout, sigmask, sigsetsize) or epoll_pwait2(...,
// timeout_ts, sigmask, sigsetsize). Ready lists the events it returned,
// as strace prints them on exit; Shown is false when strace printed no
// array (a failed call: its address). TimeoutNs is the timeout in
// nanoseconds, -1 for none (a negative timeout, a NULL timespec).
type EpollWait struct {
	Header
	Epfd      int          `json:"epfd"`
	Ready     []EpollReady `json:"ready,omitempty"`
	Shown     bool         `json:"shown,omitempty"`
	Max       int64        `json:"maxevents"`
	TimeoutNs int64        `json:"timeout_ns"`
}

// EpollReady is one struct epoll_event an epoll_wait returned. HasData
// is false when strace did not show its data.
type EpollReady struct {
	Events  []string `json:"events,omitempty"`
	Data    uint64   `json:"data"`
	HasData bool     `json:"has_data,omitempty"`
}

func decodeEpollCreate(h Header, a []Value) (Op, *badArg) {
	op := &EpollCreate{Header: h}
	if h.Syscall == "epoll_create1" {
		op.CloExec = a[0].Has("EPOLL_CLOEXEC", oCloexec) // EPOLL_CLOEXEC is O_CLOEXEC
	}
	return op, nil
}

func decodeEpollCtl(h Header, a []Value) (Op, *badArg) {
	epfd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	fd, bad := fdArg(a[2])
	if bad != nil {
		return nil, bad
	}
	op := &EpollCtl{Header: h, Epfd: epfd, Op: a[1].Symbol(), Fd: fd}
	if ev := a[3]; ev.Kind == KindStruct {
		op.HasEvent = true
		names, _ := ev.Field("events")
		op.Events = flagList(names)
		op.Data, op.HasData = epollData(ev)
	}
	return op, nil
}

// epollData reads an epoll_event's data: strace prints the union as
// {u32=N, u64=N}, or a plain number.
func epollData(ev Value) (uint64, bool) {
	d, ok := ev.Field("data")
	if !ok {
		return 0, false
	}
	if u, ok := d.Field("u64"); ok {
		d = u
	}
	n, ok := d.AsInt()
	return uint64(n), ok
}

func decodeEpollWait(h Header, a []Value) (Op, *badArg) {
	want, args := 4, "epfd, events, maxevents, timeout"
	if h.Syscall != "epoll_wait" {
		want, args = 6, "epfd, events, maxevents, timeout, sigmask, sigsetsize"
	}
	if len(a) != want && h.Result.Kind == ResultUnknown {
		// A process killed inside the call: strace prints
		// "<... name resumed> <unfinished ...>) = ?", without the
		// arguments it would have printed on exit.
		return &Ignored{Header: h, Name: h.Syscall, Reason: "no result, arguments cut"}, nil
	}
	if len(a) != want {
		at := Value{}
		if len(a) > 0 {
			at = a[len(a)-1]
		}
		return nil, &badArg{at, "expected " + args}
	}
	epfd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	max, bad := intArg(a[2], "maxevents")
	if bad != nil {
		return nil, bad
	}
	op := &EpollWait{Header: h, Epfd: epfd, Max: int64(int32(max)), TimeoutNs: -1}
	switch t := a[3]; {
	case h.Syscall != "epoll_pwait2":
		ms, bad := intArg(t, "timeout")
		if bad != nil {
			return nil, bad
		}
		if ms = int64(int32(ms)); ms >= 0 {
			op.TimeoutNs = ms * 1e6
		}
	case !t.IsNull():
		ns, bad := timespecArg(t, "timeout")
		if bad != nil {
			return nil, bad
		}
		op.TimeoutNs = ns
	}
	if evs := a[1]; evs.Kind == KindArray {
		op.Shown = true
		for _, e := range evs.Elems {
			if e.Kind != KindStruct {
				return nil, &badArg{e, "an event that is not a struct epoll_event"}
			}
			names, _ := e.Field("events")
			r := EpollReady{Events: flagList(names)}
			r.Data, r.HasData = epollData(e)
			op.Ready = append(op.Ready, r)
		}
	}
	return op, nil
}
