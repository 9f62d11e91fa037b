package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// versionLine describes the binary from its build information: the module
// version and, when the build recorded it, the VCS revision, its commit
// time and whether the tree had uncommitted changes. A binary built by
// "go run" or "go build" in a checkout has module version "(devel)"; one
// built without VCS stamping says so.
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "unknown (no build information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	vcs := map[string]string{}
	for _, s := range info.Settings {
		if strings.HasPrefix(s.Key, "vcs") {
			vcs[s.Key] = s.Value
		}
	}
	var b strings.Builder
	b.WriteString(version)
	switch rev := vcs["vcs.revision"]; {
	case rev != "":
		fmt.Fprintf(&b, ", %s revision %s", vcs["vcs"], rev)
		if t := vcs["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if vcs["vcs.modified"] == "true" {
			b.WriteString(", modified")
		}
	default:
		b.WriteString(", no VCS revision (built by go run, go test or with -buildvcs=false)")
	}
	if info.GoVersion != "" {
		fmt.Fprintf(&b, ", %s", info.GoVersion)
	}
	return b.String()
}
