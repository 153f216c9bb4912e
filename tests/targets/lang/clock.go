// clock [SECONDS]: a goroutine that reads the clock in a loop, for
// SECONDS (default 3) of wall time: time.Now() and time.Since(), which
// call the vDSO's clock_gettime from time.now and runtime.nanotime1.
// Those two switch to the thread's system stack (g0) first, keeping the
// goroutine's stack pointer in R12, so that under the vDSO's frame the
// stack pointer is not the one their CFI is written for: an unwinder
// that follows the CFI from it reads the system stack and loses the
// goroutine's frames (tests/lang-compiled.sh).  At exit it prints how
// many times it read the clock.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// A little work between the reads, so that not every sample is in them.
//
//go:noinline
func mix(x uint64) uint64 {
	for i := 0; i < 20; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func readClock(start time.Time, x uint64) (uint64, time.Duration) {
	t := time.Now()
	return mix(x ^ uint64(t.UnixNano())), time.Since(start)
}

func main() {
	limit := 3 * time.Second
	if len(os.Args) > 1 {
		secs, err := strconv.ParseFloat(os.Args[1], 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "usage: clock [SECONDS]")
			os.Exit(2)
		}
		limit = time.Duration(secs * float64(time.Second))
	}
	start := time.Now()
	var x uint64 = 1
	reads := 0
	for {
		var d time.Duration
		x, d = readClock(start, x)
		reads += 2
		if d >= limit {
			break
		}
	}
	fmt.Printf("clock: %d reads, %x\n", reads, x&0xff)
}
