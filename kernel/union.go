package kernel

import (
	"fmt"
	"strconv"
	"strings"
)

// unionString renders a bit set as strace and the uapi headers spell it:
// the names of the set bits from lowest to highest joined by "|", any bits
// without a name as one trailing hex number, and "0" for the empty set.
func unionString[T ~uint8 | ~uint16 | ~uint32](v T, names Symbols[T]) string {
	if v == 0 {
		return "0"
	}
	var parts []string
	var unknown T
	for bit := T(1); bit != 0; bit <<= 1 {
		if v&bit == 0 {
			continue
		}
		if n := names.Name(bit); n != "" {
			parts = append(parts, n)
		} else {
			unknown |= bit
		}
	}
	if unknown != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(unknown)))
	}
	return strings.Join(parts, "|")
}

// parseUnion parses a "|"-separated union of names and numbers (decimal, or
// with a 0x, 0o or 0b prefix, as strconv.ParseUint with base 0 reads them)
// into a bit set. It returns the first part that is neither, if any;
// trailing garbage such as "12abc" is such a part.
func parseUnion[T ~uint8 | ~uint32](text string, names Symbols[T]) (T, error) {
	var v T
	for _, part := range strings.Split(text, "|") {
		part = strings.TrimSpace(part)
		if b, ok := names.ByName(part); ok {
			v |= b
			continue
		}
		n, err := strconv.ParseUint(part, 0, 32)
		if err != nil {
			return 0, fmt.Errorf("unknown flag %q", part)
		}
		v |= T(n)
	}
	return v, nil
}

// ParseMsgFlags parses "MSG_ZEROCOPY|MSG_MORE", "0" or a number.
func ParseMsgFlags(text string) (MsgFlags, error) { return parseUnion(text, MsgFlagNames) }

// ParseTimestamping parses a union of SOF_TIMESTAMPING_* names or a number.
func ParseTimestamping(text string) (Timestamping, error) {
	return parseUnion(text, TimestampingNames)
}
