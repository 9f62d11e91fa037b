package cost

import (
	"errors"
	"fmt"
	"math"
)

// Fit solves the least-squares problem x·β ≈ y for β by the normal
// equations (xᵀx)β = xᵀy, with partial pivoting. Each row of x is one
// observation's regressors. It fails when there are fewer observations
// than regressors or the regressors are collinear (xᵀx singular): the
// samples cannot tell the terms apart.
func Fit(x [][]float64, y []float64) ([]float64, error) {
	if len(x) != len(y) || len(x) == 0 {
		return nil, fmt.Errorf("fit: %d rows of regressors for %d observations", len(x), len(y))
	}
	k := len(x[0])
	if len(x) < k {
		return nil, fmt.Errorf("fit: %d observations for %d unknowns", len(x), k)
	}
	// a is [xᵀx | xᵀy].
	a := make([][]float64, k)
	for i := range a {
		a[i] = make([]float64, k+1)
	}
	for r, row := range x {
		if len(row) != k {
			return nil, fmt.Errorf("fit: row %d has %d regressors, row 0 has %d", r, len(row), k)
		}
		for i := range k {
			for j := range k {
				a[i][j] += row[i] * row[j]
			}
			a[i][k] += row[i] * y[r]
		}
	}
	scale := 0.0
	for i := range k {
		scale = math.Max(scale, math.Abs(a[i][i]))
	}
	for col := range k {
		p := col
		for r := col + 1; r < k; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if math.Abs(a[p][col]) <= 1e-12*scale {
			return nil, errCollinear
		}
		a[col], a[p] = a[p], a[col]
		for r := range k {
			if r == col {
				continue
			}
			f := a[r][col] / a[col][col]
			for c := col; c <= k; c++ {
				a[r][c] -= f * a[col][c]
			}
		}
	}
	beta := make([]float64, k)
	for i := range k {
		beta[i] = a[i][k] / a[i][i]
	}
	return beta, nil
}

var errCollinear = errors.New("fit: the regressors are collinear; the samples cannot tell the terms apart")

// Kind is what a Sample measured.
type Kind string

// The kinds of sample Calibrate reads.
const (
	// EmptyRead is a recvmsg(MSG_ERRQUEUE) that found nothing (EAGAIN).
	EmptyRead Kind = "empty_read"
	// CopySend is a send of Bytes copied bytes in Packets packets
	// handled on this host (a loopback fragment counts two: sent and
	// received).
	CopySend Kind = "copy_send"
	// ZerocopySend is a MSG_ZEROCOPY send of Bytes bytes from Pages
	// user pages, in Packets packets, which loopback copies
	// (skb_copy_ubufs).
	ZerocopySend Kind = "zerocopy_send"
	// Drain is one error-queue read that returned a record.
	Drain Kind = "drain"
	// Recv is a receiver's read of one datagram of Bytes bytes.
	Recv Kind = "recv"
)

// Sample is one measurement of the live kernel: what was done and the
// CPU time it took, per operation.
type Sample struct {
	Kind    Kind    `json:"kind"`
	Bytes   int     `json:"bytes,omitempty"`
	Pages   int     `json:"pages,omitempty"`
	Packets int     `json:"packets,omitempty"`
	Nanos   float64 `json:"ns"`
}

// Calibrate fits the constants from samples (the package doc's
// Constants section says which samples give which term). Every kind must
// be present, with sizes enough to tell the terms of a regression apart.
func Calibrate(samples []Sample) (Constants, error) {
	var k Constants
	by := map[Kind][]Sample{}
	for _, s := range samples {
		by[s.Kind] = append(by[s.Kind], s)
	}
	for _, kind := range []Kind{EmptyRead, CopySend, ZerocopySend, Drain, Recv} {
		if len(by[kind]) == 0 {
			return k, fmt.Errorf("calibrate: no %s samples", kind)
		}
	}
	k[Syscall] = mean(by[EmptyRead])
	k[ErrqueueRead] = mean(by[Drain]) - k[Syscall]
	// copy send = syscall + send_call + copy_byte·bytes + packet·packets
	copyB, err := regress(by[CopySend], func(s Sample) []float64 { return []float64{1, float64(s.Bytes), float64(s.Packets)} }, nanos)
	if err != nil {
		return k, fmt.Errorf("calibrate %s: %w", CopySend, err)
	}
	k[CopyByte], k[Packet] = copyB[1], copyB[2]
	k[SendCall] = copyB[0] - k[Syscall]
	// zerocopy send = syscall + send_call + packet·packets + uarg
	//               + pin_page·pages + rx_copy_byte·bytes
	zc, err := regress(by[ZerocopySend], func(s Sample) []float64 {
		return []float64{1, float64(s.Pages), float64(s.Bytes)}
	}, func(s Sample) float64 { return s.Nanos - k[Packet]*float64(s.Packets) })
	if err != nil {
		return k, fmt.Errorf("calibrate %s: %w", ZerocopySend, err)
	}
	k[Uarg] = zc[0] - copyB[0]
	k[PinPage], k[RxCopyByte] = zc[1], zc[2]
	rd, err := regress(by[Recv], func(s Sample) []float64 { return []float64{1, float64(s.Bytes)} }, nanos)
	if err != nil {
		return k, fmt.Errorf("calibrate %s: %w", Recv, err)
	}
	k[ReadByte] = rd[1]
	return k, nil
}

// regress fits y of each sample on the regressors of its row.
func regress(ss []Sample, row func(Sample) []float64, y func(Sample) float64) ([]float64, error) {
	xs, ys := make([][]float64, len(ss)), make([]float64, len(ss))
	for i, s := range ss {
		xs[i], ys[i] = row(s), y(s)
	}
	return Fit(xs, ys)
}

// nanos is a sample's time.
func nanos(s Sample) float64 { return s.Nanos }

func mean(ss []Sample) float64 {
	t := 0.0
	for _, s := range ss {
		t += s.Nanos
	}
	return t / float64(len(ss))
}
