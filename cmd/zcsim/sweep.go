package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/cost"
	"github.com/zcsim/zcsim/cost/sweep"
)

func newSweepCmd() *cobra.Command {
	var (
		asJSON      bool
		svg, sizes  string
		calib       string
		total, each int
		list        bool
	)
	cmd := &cobra.Command{
		Use:   "sweep FAMILY|FILE [--sizes 4K,64K,1M] [--json] [--svg OUT.svg]",
		Short: "price a scenario family across send sizes, with and without zerocopy",
		Long: `sweep runs a scenario family at each send size, counts the kernel work each
run did (copied bytes, pinned pages, uargs, packets, system calls, error-queue
reads, the copy on loopback receive) and prices it with the cost model's
constants, calibrated on a live kernel (cost/calibration.json; docs/cost.md).
It prints a table of each variant's process and system cost and both as a
percentage of the baseline's (the first variant), with the seed's figures
beside the model's for the built-in families:

  netperf     seed 000: TCP over a NIC, copy vs zerocopy
  loopback    seed 004: TCP over loopback, copy vs zerocopy vs the RFC's switch
  zc-cmsg-1   seed 003: error-queue reads vs SCM_ZC_NOTIFICATION, every send
  zc-cmsg-32  seed 003: the same every 32 sends

A FILE is a scenario template (Go text/template) with {{.Size}}, {{.Count}},
{{.Every}}, {{.Flags}} ("0" or "MSG_ZEROCOPY"), {{.ZC}} and {{.Variant}}
(copy or zerocopy); docs/cost.md shows one.

Exit status 0, 1 when a run of the family has a violation or an unmet
expectation, 2 when the family or a flag is bad (file:line).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if list {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if list {
				for _, f := range sweep.Families() {
					fmt.Fprintf(out, "%-11s %s\n", f.Name, f.About)
				}
				return nil
			}
			f, err := family(args[0], total, each)
			if err != nil {
				return fail(cmd, err)
			}
			if sizes != "" {
				if f.Sizes, err = parseSizes(sizes); err != nil {
					return fail(cmd, err)
				}
			}
			c, k, err := calibration(calib)
			if err != nil {
				return fail(cmd, err)
			}
			res, err := sweep.Run(f, f.Sizes, c, k)
			if errors.Is(err, sweep.ErrRun) {
				setStatus(cmd, 1)
				fmt.Fprintln(cmd.ErrOrStderr(), err)
				return nil
			}
			if err != nil {
				return fail(cmd, err)
			}
			if svg != "" {
				var b bytes.Buffer
				if err := res.WriteSVG(&b); err != nil {
					return err
				}
				if err := os.WriteFile(svg, b.Bytes(), 0o644); err != nil {
					return fail(cmd, err)
				}
			}
			if asJSON {
				return res.WriteJSON(out)
			}
			return res.WriteText(out)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	cmd.Flags().StringVar(&svg, "svg", "", "also draw the percentages as an SVG plot into `FILE`")
	cmd.Flags().StringVar(&sizes, "sizes", "", "comma-separated send sizes (4096, 64K, 1M); default: the family's")
	cmd.Flags().IntVar(&total, "total", 8<<20, "bytes each run of a FILE moves ({{.Count}} = total / size)")
	cmd.Flags().IntVar(&each, "every", 32, "sends between notification collections in a FILE ({{.Every}})")
	cmd.Flags().BoolVar(&list, "list", false, "list the built-in families")
	cmd.Flags().StringVar(&calib, "calibration", "", "price with the constants of `FILE` (written by the calibration benchmark; docs/cost.md) instead of cost/calibration.json")
	return cmd
}

// family is the built-in family of that name, or the template in the
// file of that name.
func family(arg string, total, every int) (*sweep.Family, error) {
	if f, ok := sweep.Lookup(arg); ok {
		return f, nil
	}
	src, err := os.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("sweep: %q is no built-in family (zcsim sweep --list) and cannot be read: %w", arg, err)
	}
	return sweep.Parse(arg, src, total, every)
}

// calibration is the calibration in file, or the checked-in one.
func calibration(file string) (*cost.Calibration, cost.Constants, error) {
	if file == "" {
		return cost.Calibrated()
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, cost.Constants{}, err
	}
	var c cost.Calibration
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, cost.Constants{}, fmt.Errorf("%s: %w", file, err)
	}
	k, err := c.Constants()
	if err != nil {
		return nil, cost.Constants{}, fmt.Errorf("%s: %w", file, err)
	}
	return &c, k, nil
}

// parseSizes reads "4096,16K,1M" into sizes, ascending and distinct.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		switch {
		case strings.HasSuffix(f, "K"):
			f, mult = strings.TrimSuffix(f, "K"), 1<<10
		case strings.HasSuffix(f, "M"):
			f, mult = strings.TrimSuffix(f, "M"), 1<<20
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || n > (1<<30)/mult {
			return nil, fmt.Errorf("--sizes: %q is not a size from 1 byte to 1G (4096, 16K, 1M)", f)
		}
		out = append(out, n*mult)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
