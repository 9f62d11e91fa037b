package cost

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The checked-in calibration names where it came from and prices every
// term.
func TestCalibrated(t *testing.T) {
	c, k, err := Calibrated()
	require.NoError(t, err)
	require.NotEmpty(t, c.Machine)
	require.NotEmpty(t, c.Kernel)
	require.Regexp(t, `^\d{4}-\d\d-\d\d$`, c.Date)
	require.Contains(t, c.Command, "TestCalibrateCost")
	for tm := range NumTerms {
		require.Greater(t, k[tm], 0.0, "%s", tm)
	}
	// The file's samples fit to its constants: it was not edited by hand.
	fit, err := Calibrate(c.Samples)
	require.NoError(t, err)
	for tm := range NumTerms {
		require.InDelta(t, k[tm], fit[tm], 1e-4+1e-6*k[tm], "%s", tm)
	}
}

func TestCalibrationConstantsRefuse(t *testing.T) {
	full := func() map[string]float64 {
		m := map[string]float64{}
		for tm := range NumTerms {
			m[tm.String()] = 1
		}
		return m
	}
	for _, tc := range []struct {
		name string
		edit func(map[string]float64)
		want string
	}{
		{"unknown", func(m map[string]float64) { m["memcpy"] = 1 }, `"memcpy" is not a cost term`},
		{"missing", func(m map[string]float64) { delete(m, "uarg") }, "no cost for uarg"},
		{"negative", func(m map[string]float64) { m["packet"] = -1 }, "packet = -1 ns"},
		{"nan", func(m map[string]float64) { m["packet"] = math.NaN() }, "packet = NaN ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := full()
			tc.edit(m)
			_, err := (&Calibration{Nanos: m}).Constants()
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestTermNames(t *testing.T) {
	for tm := range NumTerms {
		got, ok := ParseTerm(tm.String())
		require.True(t, ok)
		require.Equal(t, tm, got)
	}
	_, ok := ParseTerm("nothing")
	require.False(t, ok)
	require.Equal(t, "Term(200)", Term(200).String())
}
