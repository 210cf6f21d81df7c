// Command windowlab teaches how window-counting rate limiters behave by
// replaying traffic through them side by side on a virtual clock.
//
// This file is the whole of the main package: the commands are in
// internal/cli, the work in the packages they call.
package main

import "windowlab/internal/cli"

// A packager's build names its version, and the commit when the build
// records none itself:
//
//	go build -ldflags "-X main.version=1.4.0 -X main.commit=0a1b2c3d4e5f"
var (
	version string
	commit  string
)

func main() { cli.Main(version, commit) }
