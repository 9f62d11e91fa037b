package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/pktdrill"
	"github.com/zcsim/zcsim/sim/scenario"
)

func newImportCmd() *cobra.Command {
	var packetdrill bool
	cmd := &cobra.Command{
		Use:   "import --packetdrill FILE.pkt",
		Short: "translate a packetdrill script into a scenario",
		Long: `import --packetdrill translates a packetdrill script into a scenario and prints
it: relative and absolute times become waits, system calls the scenario's
statements with their expected results, inbound packets (<) inject statements
and outbound ones (>) packet statements on the scripted tun device tun0. Each
statement ends with a comment naming the script line it comes from. What the
model cannot run (shell commands, --tolerance_usecs, options it has no part
for) becomes a note, and import lists it on standard error.

zcsim run FILE.pkt runs the same translation directly (docs/cli.md).

Exit status 2, with file:line:col, for a construct the importer does not know.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !packetdrill {
				return fail(cmd, fmt.Errorf("import: say what FILE is: --packetdrill"))
			}
			r, err := importPacketdrill(args[0])
			if err != nil {
				return fail(cmd, err)
			}
			for _, n := range r.NotRun {
				fmt.Fprintln(cmd.ErrOrStderr(), "not run:", n)
			}
			_, err = cmd.OutOrStdout().Write(r.Scenario)
			return err
		},
	}
	cmd.Flags().BoolVar(&packetdrill, "packetdrill", false, "FILE is a packetdrill script")
	return cmd
}

// importPacketdrill reads and translates a packetdrill script.
func importPacketdrill(file string) (pktdrill.Result, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return pktdrill.Result{}, err
	}
	return pktdrill.Import(file, src)
}

// loadScenario reads and loads a file run takes: a scenario, or a
// packetdrill script (FILE.pkt) translated, named FILE.pkt.zcs, whose
// input errors are reported at the script's lines.
func loadScenario(file string, opts interp.Options) (*interp.Scenario, error) {
	if !strings.HasSuffix(file, ".pkt") {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		return interp.Load(file, src, opts)
	}
	r, err := importPacketdrill(file)
	if err != nil {
		return nil, err
	}
	sc, err := interp.Load(file+".zcs", r.Scenario, opts)
	return sc, r.Locate(err)
}

func newExportCmd() *cobra.Command {
	var packetdrill bool
	var family string
	cmd := &cobra.Command{
		Use:   "export --packetdrill [--family F] FILE.zcs",
		Short: "write a scenario as a packetdrill script for the live kernel",
		Long: `export --packetdrill writes a scenario as a packetdrill script that a
packetdrill binary runs against the live kernel: the scenario's one scripted
device is packetdrill's tun, its TCP sockets are the script's descriptors,
inject statements inbound packets and packet statements outbound ones.
--family (inet, inet6, mapped) runs the scenario in that family first, as
run --family does, and the script's --ip_version says it.

A statement packetdrill cannot express (a NIC, settle, expect, a call without
an expectation, a socket off the scripted device) is an error naming it:
exit status 2 (docs/cli.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !packetdrill {
				return fail(cmd, fmt.Errorf("export: say what to write: --packetdrill"))
			}
			fam, err := scenario.ParseFamily(family)
			if err != nil {
				return fail(cmd, err)
			}
			src, err := os.ReadFile(args[0])
			if err != nil {
				return fail(cmd, err)
			}
			out, err := pktdrill.Export(args[0], src, fam)
			if err != nil {
				return fail(cmd, err)
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	cmd.Flags().BoolVar(&packetdrill, "packetdrill", false, "write a packetdrill script")
	cmd.Flags().StringVar(&family, "family", "inet", "address family to run the scenario in: inet, inet6 or mapped")
	return cmd
}
