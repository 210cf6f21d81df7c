//go:build !race

package accesslog

const raceOn = false
