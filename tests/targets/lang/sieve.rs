// sieve [SECONDS]: three marker phases in rounds, with work 2:3:5, for
// SECONDS (default 3) of CPU time.  Each phase is timed by the thread's
// CPU clock, and at exit one line per phase gives its share of the three,
// for tests/lang-compiled.sh to hold the profile against:
//     sieve: phase_alpha 20.1%
//
// The phases are the methods of a trait implemented for a generic type in
// a module, so that both manglings (legacy, with its hash, and v0) have a
// path with generics to encode.  Their work is done in one worker, so that
// a phase is on the stack as a caller only, found by unwinding.  std only,
// one file: rustc builds it without cargo.

use std::env;

// The thread's CPU clock, which std does not offer: libc's, linked anyway.
#[repr(C)]
struct Timespec {
	sec: i64,
	nsec: i64,
}

extern "C" {
	fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

fn cpu_now() -> f64 {
	let mut ts = Timespec { sec: 0, nsec: 0 };
	unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
	ts.sec as f64 + ts.nsec as f64 * 1e-9
}

mod work {
	pub trait Phases {
		fn phase_alpha(&mut self, k: u32) -> usize;
		fn phase_beta(&mut self, k: u32) -> usize;
		fn phase_gamma(&mut self, k: u32) -> usize;
	}

	// Sieve of Eratosthenes over a table small enough to stay in L1.
	pub struct Sieve<T> {
		composite: Vec<T>,
	}

	impl<T: Copy + From<bool> + PartialEq> Sieve<T> {
		pub fn new(n: usize) -> Self {
			Sieve { composite: vec![T::from(false); n] }
		}

		// The primes below the table's size.
		#[inline(never)]
		fn sift(&mut self) -> usize {
			let (no, yes, n) = (T::from(false), T::from(true), self.composite.len());
			let mut primes = 0;

			for c in self.composite.iter_mut() {
				*c = no;
			}
			for i in 2..n {
				if self.composite[i] == no {
					primes += 1;
					let mut j = i * i;
					while j < n {
						self.composite[j] = yes;
						j += i;
					}
				}
			}
			primes
		}
	}

	// Each phase adds after each call, so that no call is a tail call
	// that would take the phase off the stack.
	impl<T: Copy + From<bool> + PartialEq> Phases for Sieve<T> {
		#[inline(never)]
		fn phase_alpha(&mut self, k: u32) -> usize {
			let mut sum = 0;
			for _ in 0..2 * k {
				sum += self.sift();
			}
			sum
		}

		#[inline(never)]
		fn phase_beta(&mut self, k: u32) -> usize {
			let mut sum = 0;
			for _ in 0..3 * k {
				sum += self.sift();
			}
			sum
		}

		#[inline(never)]
		fn phase_gamma(&mut self, k: u32) -> usize {
			let mut sum = 0;
			for _ in 0..5 * k {
				sum += self.sift();
			}
			sum
		}
	}
}

use work::Phases;

fn main() {
	let secs: f64 = env::args().nth(1).map_or(3.0, |a| a.parse().expect("SECONDS"));
	let mut sieve = work::Sieve::<u8>::new(16384);
	let (mut t, mut sum, mut rounds) = ([0f64; 3], 0, 0);
	let start = cpu_now();

	// Rounds of a few ms: a drift in the machine's speed is shared out.
	while cpu_now() - start < secs {
		let a = cpu_now();
		sum += sieve.phase_alpha(10);
		let b = cpu_now();
		sum += sieve.phase_beta(10);
		let c = cpu_now();
		sum += sieve.phase_gamma(10);
		let d = cpu_now();
		t[0] += b - a;
		t[1] += c - b;
		t[2] += d - c;
		rounds += 1;
	}
	let all = t[0] + t[1] + t[2];
	for (name, s) in ["phase_alpha", "phase_beta", "phase_gamma"].iter().zip(t.iter()) {
		println!("sieve: {} {:.1}%", name, 100.0 * s / all);
	}
	eprintln!("sieve: {} rounds, {} primes", rounds, sum);
}
