// preempt [SECONDS]: a goroutine that calls a one-instruction leaf in a
// loop, for SECONDS (default 3) of wall time, while another calls
// runtime.GC() without end.  Each collection stops the world, and Go stops
// a running goroutine with a signal whose handler makes the interrupted
// code seem to call runtime.asyncPreempt: the interrupted PC is pushed as
// a return address.  As often as not it is bump's first instruction, whose
// address less one is in the code before bump; an unwinder that looks the
// caller up there, as it rightly does for a return address, loses the
// stack (tests/lang-compiled.sh).  At exit it prints how many collections
// ran.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

// No call and no local: a leaf without a frame, its entry one instruction
// before its return.
//
//go:noinline
func bump(x int) int {
	return x + 1
}

// Calls in a row, so that many of the PCs the loop runs are bump's entry.
//
//go:noinline
func spin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s = bump(bump(bump(bump(bump(bump(bump(bump(s))))))))
	}
	return s
}

func main() {
	secs := 3.0
	if len(os.Args) > 1 {
		var err error
		if secs, err = strconv.ParseFloat(os.Args[1], 64); err != nil {
			panic(err)
		}
	}
	var gcs int64
	go func() {
		for {
			runtime.GC()
			atomic.AddInt64(&gcs, 1)
		}
	}()
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	sum := 0
	for time.Now().Before(end) {
		sum += spin(100000)
	}
	fmt.Printf("preempt: %d collections, sum %d\n", atomic.LoadInt64(&gcs), sum)
}
