package nginxtest

import (
	"syscall"
	"time"
	"unsafe"
)

// clockMonotonicCoarse is Linux's CLOCK_MONOTONIC_COARSE.
const clockMonotonicCoarse = 6

// ClockTick is how far the clock nginx decides on moves at a time: nginx
// reads ngx_current_msec from CLOCK_MONOTONIC_COARSE on Linux, a clock
// that moves in kernel ticks (4 ms at HZ=250, 10 ms at HZ=100, 1 ms at
// HZ=1000), while it logs gettimeofday's ms. 10 ms when the kernel does
// not say.
func ClockTick() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETRES, clockMonotonicCoarse, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 10 * time.Millisecond
	}
	if d := time.Duration(ts.Nano()); d > 0 && d <= time.Second {
		return d
	}
	return 10 * time.Millisecond
}
