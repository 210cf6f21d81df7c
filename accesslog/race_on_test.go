//go:build race

package accesslog

const raceOn = true
