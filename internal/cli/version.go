package cli

import (
	"runtime/debug"
	"strings"
)

// A packager's build names its version, and the commit when the build
// records none itself, in the main package (main.go), which hands them to
// Main:
//
//	go build -ldflags "-X main.version=1.4.0 -X main.commit=0a1b2c3d4e5f"
var (
	version string
	commit  string
)

// buildVersion is what windowlab --version prints after "windowlab
// version": a packager's version; else the module's, for a tagged
// install; else the commit a go build in a git checkout records, its time
// and whether files differed from it.
func buildVersion(info *debug.BuildInfo) string {
	settings := map[string]string{}
	if info != nil {
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
	}
	rev, at, modified := settings["vcs.revision"], settings["vcs.time"], settings["vcs.modified"] == "true"
	if commit != "" {
		rev = commit
	}
	v := version
	if v == "" && info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	var details []string
	if rev != "" {
		id := rev[:min(len(rev), 12)]
		if modified {
			id += "-modified"
		}
		details = append(details, id)
		if at != "" {
			details = append(details, at)
		}
	}
	switch {
	case v != "" && len(details) > 0 && !strings.Contains(v, rev[:min(len(rev), 12)]):
		return v + " (" + strings.Join(details, ", ") + ")"
	case v != "":
		return v
	case len(details) > 0:
		return "devel " + strings.Join(details, ", ")
	}
	return "unknown (built without version control: go build in a git checkout records the commit)"
}

// versionOf is buildVersion for the running binary.
func versionOf() string {
	info, _ := debug.ReadBuildInfo()
	return buildVersion(info)
}
