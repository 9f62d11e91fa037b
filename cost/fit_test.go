package cost

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Fit recovers the coefficients of exact linear data, whatever they are,
// to the precision floating point allows (fitTolerance).
func TestFitRecoversCoefficients(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 4).Draw(t, "k")
		beta := make([]float64, k)
		for i := range beta {
			beta[i] = rapid.Float64Range(-1000, 1000).Draw(t, "beta")
		}
		n := rapid.IntRange(k+2, 20).Draw(t, "n")
		x, y := make([][]float64, n), make([]float64, n)
		for r := range x {
			x[r] = make([]float64, k)
			x[r][0] = 1
			for i := 1; i < k; i++ {
				x[r][i] = float64(rapid.IntRange(0, 70000).Draw(t, "x"))
			}
			for i := range k {
				y[r] += beta[i] * x[r][i]
			}
		}
		got, err := Fit(x, y)
		if err != nil {
			t.Skip("collinear draw") // the regressors drawn may repeat
		}
		for i := range beta {
			if tol := fitTolerance(x, beta, i); math.Abs(got[i]-beta[i]) > tol {
				t.Fatalf("β[%d] = %v, want %v within %.3g", i, got[i], beta[i], tol)
			}
		}
	})
}

// fitTolerance is how far a floating-point fit's β[i] may be from the
// exact one: 1e-6 relative to itself, plus what a 1e-9 relative error
// in the largest observation is worth in the units of β[i]. The second
// term is the numeric limit of the fit: an intercept of 1 next to terms
// of 10⁶ is known to about 10⁻³ of itself (the normal equations square
// the condition number), not to 10⁻⁶.
func fitTolerance(x [][]float64, beta []float64, i int) float64 {
	ymax, xmax := 0.0, 0.0
	for _, row := range x {
		terms := 0.0
		for j, v := range row {
			terms += math.Abs(beta[j] * v)
		}
		ymax, xmax = math.Max(ymax, terms), math.Max(xmax, math.Abs(row[i]))
	}
	tol := 1e-6 * (1 + math.Abs(beta[i]))
	if xmax > 0 {
		tol += 1e-9 * ymax / xmax
	}
	return tol
}

// Noise averages out: the fit is the least-squares line, not a point.
func TestFitLeastSquares(t *testing.T) {
	x := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
	y := []float64{1, 2.5, 5, 6.5} // the line 0.9 + 1.9 x
	got, err := Fit(x, y)
	require.NoError(t, err)
	require.InDelta(t, 0.9, got[0], 1e-9)
	require.InDelta(t, 1.9, got[1], 1e-9)
}

func TestFitCannotTellTermsApart(t *testing.T) {
	_, err := Fit([][]float64{{1, 2}, {2, 4}, {3, 6}}, []float64{1, 2, 3})
	require.ErrorIs(t, err, errCollinear)
	_, err = Fit([][]float64{{1, 2}}, []float64{1})
	require.ErrorContains(t, err, "1 observations for 2 unknowns")
	_, err = Fit([][]float64{{1, 2}, {1}}, []float64{1, 2})
	require.ErrorContains(t, err, "row 1 has 1 regressors")
	_, err = Fit(nil, nil)
	require.Error(t, err)
}

// synthetic are the samples a kernel whose costs are exactly k gives,
// by the formulas of Calibrate's doc, with fixed costs c the differences
// leave over.
func synthetic(k Constants) []Sample {
	send := k[Syscall] + k[SendCall]
	var out []Sample
	out = append(out, Sample{Kind: EmptyRead, Nanos: k[Syscall]})
	for _, frames := range []int{1, 3} {
		for _, size := range []int{64, 4096, 61440} {
			p := 2 * frames * (1 + size/30000)
			out = append(out, Sample{Kind: CopySend, Bytes: size, Packets: p,
				Nanos: send + k[CopyByte]*float64(size) + k[Packet]*float64(p)})
		}
	}
	for _, size := range []int{1024, 8192, 61440} {
		pages := (size + 4095) / 4096
		drop := send + k[CopyByte]*float64(size) + k[Packet]
		zc := send + k[Packet] + k[Uarg] + k[PinPage]*float64(pages)
		out = append(out,
			Sample{Kind: DropCopySend, Bytes: size, Packets: 1, Nanos: drop},
			Sample{Kind: DropZerocopySend, Bytes: size, Pages: pages, Packets: 1, Nanos: zc},
			Sample{Kind: LoopZerocopySend, Bytes: size, Pages: pages, Packets: 2, Nanos: zc + 700 + k[RxCopyByte]*float64(size)},
			Sample{Kind: Recv, Bytes: size, Nanos: k[Syscall] + 300 + k[ReadByte]*float64(size)})
	}
	return append(out, Sample{Kind: SendRead, Bytes: 1024, Pages: 1, Packets: 1,
		Nanos: send + k[Packet] + k[Uarg] + k[PinPage] + k[Syscall] + k[ErrqueueRead]})
}

// Calibrate recovers the constants of a kernel that follows its model.
func TestCalibrateRecoversConstants(t *testing.T) {
	want := Constants{1200, 1500, 0.09, 80, 350, 670, 0.15, 500, 0.08}
	got, err := Calibrate(synthetic(want))
	require.NoError(t, err)
	for tm := range NumTerms {
		require.InDelta(t, want[tm], got[tm], 1e-6*(1+want[tm]), "%s", tm)
	}
}

func TestCalibrateRefuses(t *testing.T) {
	k := Constants{1200, 1500, 0.09, 80, 350, 670, 0.15, 500, 0.08}
	var noRecv []Sample
	for _, s := range synthetic(k) {
		if s.Kind != Recv {
			noRecv = append(noRecv, s)
		}
	}
	_, err := Calibrate(noRecv)
	require.ErrorContains(t, err, "no recv samples")
	noisy := synthetic(k)
	for i := range noisy {
		if noisy[i].Kind == DropZerocopySend {
			noisy[i].Nanos -= 2000 // zerocopy came out cheaper than nothing
		}
	}
	_, err = Calibrate(noisy)
	require.ErrorContains(t, err, "too noisy")
}
