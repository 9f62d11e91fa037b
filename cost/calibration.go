package cost

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
)

// Calibration is a set of constants and where they were measured: the
// file calibration.json, written by the kernel benchmark (package doc,
// Constants).
type Calibration struct {
	// Machine, Kernel and Date say where and when the constants were
	// measured; Command how to measure them again.
	Machine string `json:"machine"`
	Kernel  string `json:"kernel"`
	Date    string `json:"date"`
	Command string `json:"command"`
	// Nanos is each term's cost in nanoseconds per unit, by name.
	Nanos map[string]float64 `json:"ns"`
	// Samples are the measurements the constants were fitted from.
	Samples []Sample `json:"samples,omitempty"`
}

// Constants are the calibration's constants by term. A term the file
// does not name, a name that is no term, or a value that is negative or
// not finite is an error.
func (c *Calibration) Constants() (Constants, error) {
	var k Constants
	seen := [NumTerms]bool{}
	for name, v := range c.Nanos {
		t, ok := ParseTerm(name)
		if !ok {
			return k, fmt.Errorf("calibration: %q is not a cost term", name)
		}
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return k, fmt.Errorf("calibration: %s = %v ns, want a finite cost ≥ 0", name, v)
		}
		k[t], seen[t] = v, true
	}
	for t, ok := range seen {
		if !ok {
			return k, fmt.Errorf("calibration: no cost for %s", Term(t))
		}
	}
	return k, nil
}

// SetConstants stores k by term name.
func (c *Calibration) SetConstants(k Constants) {
	c.Nanos = map[string]float64{}
	for t := range NumTerms {
		c.Nanos[t.String()] = math.Round(k[t]*1e4) / 1e4
	}
}

//go:embed calibration.json
var calibrationJSON []byte

// Calibrated is the calibration checked in with zcsim (calibration.json).
func Calibrated() (*Calibration, Constants, error) {
	var c Calibration
	if err := json.Unmarshal(calibrationJSON, &c); err != nil {
		return nil, Constants{}, fmt.Errorf("calibration.json: %w", err)
	}
	k, err := c.Constants()
	return &c, k, err
}
