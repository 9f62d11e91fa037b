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

// The kinds of sample Calibrate reads. Loopback delivers to a local
// receiver; the dropping device is lo with a qdisc that drops every frame
// at dev_queue_xmit, the sender's side of a NIC without the driver.
const (
	// EmptyRead is a recvmsg(MSG_ERRQUEUE) that found nothing (EAGAIN).
	EmptyRead Kind = "empty_read"
	// CopySend is a copied send of Bytes bytes over loopback, in
	// Packets packets handled on this host (a fragment counts two: sent
	// and received).
	CopySend Kind = "copy_send"
	// DropCopySend is a copied send of Bytes bytes on the dropping
	// device.
	DropCopySend Kind = "drop_copy_send"
	// DropZerocopySend is a MSG_ZEROCOPY send of Bytes bytes from Pages
	// user pages on the dropping device: nothing copies its frags.
	DropZerocopySend Kind = "drop_zerocopy_send"
	// LoopZerocopySend is a MSG_ZEROCOPY send of Bytes bytes over
	// loopback, whose receive copies its frags (skb_copy_ubufs).
	LoopZerocopySend Kind = "loop_zerocopy_send"
	// SendRead is a DropZerocopySend of Bytes bytes followed by the
	// error-queue read of its notification (the drop completed it).
	SendRead Kind = "send_read"
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

// Calibrate fits the constants from samples. Every kind must be
// present, with sizes enough to tell the terms of each regression
// apart, and every fitted cost must come out at least 0: a negative one
// means the samples are too noisy to tell. The fits:
//
//	syscall        = mean EmptyRead
//	errqueue_read  = SendRead − DropZerocopySend − syscall                      (same Bytes)
//	CopySend       = syscall + send_call + copy_byte·Bytes + packet·Packets
//	DropZerocopySend − DropCopySend + copy_byte·Bytes = uarg + pin_page·Pages   (same Bytes)
//	LoopZerocopySend − DropZerocopySend = c + rx_copy_byte·Bytes               (same Bytes)
//	Recv           = c + read_byte·Bytes
//
// The differences pair samples of the same size, so that what both
// sends do cancels.
func Calibrate(samples []Sample) (Constants, error) {
	var k Constants
	by := map[Kind][]Sample{}
	for _, s := range samples {
		by[s.Kind] = append(by[s.Kind], s)
	}
	for _, kind := range []Kind{EmptyRead, CopySend, DropCopySend, DropZerocopySend, LoopZerocopySend, SendRead, Recv} {
		if len(by[kind]) == 0 {
			return k, fmt.Errorf("calibrate: no %s samples", kind)
		}
	}
	k[Syscall] = mean(by[EmptyRead])
	cp, err := regress(by[CopySend], func(s Sample) []float64 { return []float64{1, float64(s.Bytes), float64(s.Packets)} }, nanos)
	if err != nil {
		return k, fmt.Errorf("calibrate %s: %w", CopySend, err)
	}
	k[SendCall], k[CopyByte], k[Packet] = cp[0]-k[Syscall], cp[1], cp[2]
	dropCopy, dropZC := bySize(by[DropCopySend]), bySize(by[DropZerocopySend])
	zc, err := regress(paired(by[DropZerocopySend], dropCopy), func(s Sample) []float64 { return []float64{1, float64(s.Pages)} },
		func(s Sample) float64 { return s.Nanos - dropCopy[s.Bytes] + k[CopyByte]*float64(s.Bytes) })
	if err != nil {
		return k, fmt.Errorf("calibrate %s: %w", DropZerocopySend, err)
	}
	k[Uarg], k[PinPage] = zc[0], zc[1]
	reads := paired(by[SendRead], dropZC)
	if len(reads) == 0 {
		return k, fmt.Errorf("calibrate: no %s sample of a size a %s sample has", SendRead, DropZerocopySend)
	}
	for _, s := range reads {
		k[ErrqueueRead] += (s.Nanos - dropZC[s.Bytes] - k[Syscall]) / float64(len(reads))
	}
	rx, err := regress(paired(by[LoopZerocopySend], dropZC), func(s Sample) []float64 { return []float64{1, float64(s.Bytes)} },
		func(s Sample) float64 { return s.Nanos - dropZC[s.Bytes] })
	if err != nil {
		return k, fmt.Errorf("calibrate %s: %w", LoopZerocopySend, err)
	}
	k[RxCopyByte] = rx[1]
	rd, err := regress(by[Recv], func(s Sample) []float64 { return []float64{1, float64(s.Bytes)} }, nanos)
	if err != nil {
		return k, fmt.Errorf("calibrate %s: %w", Recv, err)
	}
	k[ReadByte] = rd[1]
	for t, v := range k {
		if v < 0 {
			return k, fmt.Errorf("calibrate: %s = %.4g ns: the samples are too noisy to tell (rerun on a quieter machine)", Term(t), v)
		}
	}
	return k, nil
}

// bySize is each sample's time by its Bytes.
func bySize(ss []Sample) map[int]float64 {
	m := make(map[int]float64, len(ss))
	for _, s := range ss {
		m[s.Bytes] = s.Nanos
	}
	return m
}

// paired is the samples of ss whose size other has too.
func paired(ss []Sample, other map[int]float64) []Sample {
	var out []Sample
	for _, s := range ss {
		if _, ok := other[s.Bytes]; ok {
			out = append(out, s)
		}
	}
	return out
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
