// sieve [SECONDS]: three marker phases in rounds, with work 2:3:5, for
// SECONDS (default 3) of CPU time.  Each phase is timed by its thread's
// CPU clock, and at exit one line per phase gives its share of the three,
// for tests/lang-compiled.sh to hold the profile against:
//
//	sieve: phaseAlpha 20.1%
//
// Their work is done in one worker, so that a phase is on the stack as a
// caller only, found by unwinding.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// Sieve of Eratosthenes over a table small enough to stay in L1.
type sieve struct {
	composite []bool
}

// The primes below the table's size.
//
//go:noinline
func (s *sieve) sift() int {
	n, primes := len(s.composite), 0
	for i := range s.composite {
		s.composite[i] = false
	}
	for i := 2; i < n; i++ {
		if s.composite[i] {
			continue
		}
		primes++
		for j := i * i; j < n; j += stride(i) {
			s.composite[j] = true
		}
	}
	return primes
}

// The step from one multiple of a prime to the next.  With no call and no
// local, Go compiles it without a frame: it keeps no frame pointer of its
// own, and an unwinder that follows frame pointers alone goes from it to
// its caller's caller, losing sift.
//
//go:noinline
func stride(i int) int {
	return i
}

// Each phase adds after each call, so that no call is a tail call (Go
// makes none anyway) and Go, which inlines small loops, keeps the phase.
//
//go:noinline
func phaseAlpha(s *sieve, k int) int {
	sum := 0
	for i := 0; i < 2*k; i++ {
		sum += s.sift()
	}
	return sum
}

//go:noinline
func phaseBeta(s *sieve, k int) int {
	sum := 0
	for i := 0; i < 3*k; i++ {
		sum += s.sift()
	}
	return sum
}

//go:noinline
func phaseGamma(s *sieve, k int) int {
	sum := 0
	for i := 0; i < 5*k; i++ {
		sum += s.sift()
	}
	return sum
}

// The thread's CPU clock, which the standard library does not offer; the
// goroutine is locked to its thread, so that it is the phases' thread.
func cpuNow() float64 {
	var ts syscall.Timespec
	const clockThreadCputimeID = 3
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCputimeID,
		uintptr(unsafe.Pointer(&ts)), 0)
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}

func main() {
	runtime.LockOSThread()
	secs := 3.0
	if len(os.Args) > 1 {
		var err error
		if secs, err = strconv.ParseFloat(os.Args[1], 64); err != nil {
			panic(err)
		}
	}
	s := &sieve{composite: make([]bool, 16384)}
	var t [3]float64
	sum, rounds := 0, 0
	start := cpuNow()

	// Rounds of a few ms: a drift in the machine's speed is shared out.
	for cpuNow()-start < secs {
		a := cpuNow()
		sum += phaseAlpha(s, 10)
		b := cpuNow()
		sum += phaseBeta(s, 10)
		c := cpuNow()
		sum += phaseGamma(s, 10)
		d := cpuNow()
		t[0] += b - a
		t[1] += c - b
		t[2] += d - c
		rounds++
	}
	all := t[0] + t[1] + t[2]
	for i, name := range []string{"phaseAlpha", "phaseBeta", "phaseGamma"} {
		fmt.Printf("sieve: %s %.1f%%\n", name, 100*t[i]/all)
	}
	fmt.Fprintf(os.Stderr, "sieve: %d rounds, %d primes\n", rounds, sum)
}
