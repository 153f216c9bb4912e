// Three marker phases in rounds, 2:3:5 work, each timed by the program's
// own clock; prints each phase's share of their sum at exit.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

var sink uint64

// Each phase loops itself: Go does not inline a function with a loop,
// and a phase must not be a mere call.
//
//go:noinline
func phaseAlpha(n uint64) uint64 {
	s := uint64(7)
	for i := uint64(0); i < n; i++ {
		s = (s*31 + i) % 1000003
		sink = s
	}
	return s
}

//go:noinline
func phaseBeta(n uint64) uint64 {
	s := uint64(7)
	for i := uint64(0); i < n; i++ {
		s = (s*17 + i) % 1000003
		sink = s
	}
	return s
}

//go:noinline
func phaseGamma(n uint64) uint64 {
	s := uint64(7)
	for i := uint64(0); i < n; i++ {
		s = (s*13 + i) % 1000003
		sink = s
	}
	return s
}

func main() {
	secs := 2.0
	if len(os.Args) > 1 {
		secs, _ = strconv.ParseFloat(os.Args[1], 64)
	}
	var t [3]time.Duration
	var x uint64
	unit := uint64(100000)
	start := time.Now()
	for time.Since(start).Seconds() < secs {
		a := time.Now()
		x ^= phaseAlpha(2 * unit)
		t[0] += time.Since(a)
		a = time.Now()
		x ^= phaseBeta(3 * unit)
		t[1] += time.Since(a)
		a = time.Now()
		x ^= phaseGamma(5 * unit)
		t[2] += time.Since(a)
	}
	sum := float64(t[0] + t[1] + t[2])
	fmt.Printf("own: phaseAlpha %.1f\nown: phaseBeta %.1f\nown: phaseGamma %.1f\n(%d)\n",
		100*float64(t[0])/sum, 100*float64(t[1])/sum, 100*float64(t[2])/sum, x)
}
