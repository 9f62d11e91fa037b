package interp

import (
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/scenario"
)

// gotField is what the read (or the poll, for revents) returned for the
// field key, as a number,
// and whether it returned one at all: a read whose buffer holds no
// cmsghdr has no cmsg_level, one without the whole sock_extended_err no
// ee_* fields.
func gotField(key string, r sim.Result) (int64, bool) {
	c, rec := r.Cmsg, r.Record
	if strings.HasPrefix(key, "tcpi_") {
		v, ok := r.TCPInfo[key]
		return int64(v), ok
	}
	switch key {
	case "msg_flags":
		return int64(r.MsgFlags), true
	case "revents":
		return int64(r.Revents), true
	case "cmsg_level", "cmsg_type":
		if c == nil {
			return 0, false
		}
		if key == "cmsg_level" {
			return int64(c.Level), true
		}
		return int64(c.Type), true
	}
	if c == nil || !c.Data || rec == nil {
		return 0, false
	}
	switch key {
	case "ee_errno":
		return int64(rec.Errno), true
	case "ee_origin":
		return int64(rec.Origin), true
	case "ee_type":
		return int64(rec.Type), true
	case "ee_code":
		return int64(rec.Code), true
	case "ee_info":
		return int64(rec.Info), true
	}
	return int64(rec.Data), true
}

// fieldsMatch checks a read's message against the field checks.
func fieldsMatch(fs scenario.Fields, r sim.Result) bool {
	for _, f := range fs {
		got, ok := gotField(f.Key, r)
		if !ok || got != f.Number() {
			return false
		}
	}
	return true
}

// fieldsText renders what the read returned for each checked field:
// "msg_flags=MSG_ERRQUEUE|MSG_CTRUNC cmsg_level=none".
func fieldsText(fs scenario.Fields, r sim.Result) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		got, ok := gotField(f.Key, r)
		var v string
		switch {
		case !ok:
			v = "none"
		case f.Key == "msg_flags":
			v = kernel.MsgFlags(got).String()
		case f.Key == "revents":
			v = kernel.PollEvents(got).String()
		case f.Key == "cmsg_level":
			v = kernel.LevelNames.Name(kernel.Level(got))
		case f.Key == "cmsg_type":
			v = kernel.ErrqueueCmsgNames.Name(kernel.CmsgType{Level: r.Cmsg.Level, Name: int32(got)})
			if v == "" {
				v = strconv.FormatInt(got, 10)
			}
		case f.Key == "ee_errno" && got != 0:
			v = kernel.Errno(got).String()
		default:
			v = strconv.FormatInt(got, 10)
		}
		parts[i] = f.Key + "=" + v
	}
	return strings.Join(parts, " ")
}
