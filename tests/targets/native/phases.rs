// Three marker phases in rounds, 2:3:5 work, each timed by the program's
// own clock; prints each phase's share of their sum at exit.  Methods of a
// generic struct in a module, so that both manglings have work to do.
use std::time::Instant;

mod work {
    pub struct Sieve<T> {
        pub seed: T,
    }

    impl<T: Copy + Into<u64>> Sieve<T> {
        // Inlined into each phase, so that a phase is never a tail call.
        #[inline(always)]
        fn phase(&self, n: u64, mul: u64) -> u64 {
            let mut s = self.seed.into();
            for i in 0..n {
                s = unsafe { std::ptr::read_volatile(&s) };
                s = (s.wrapping_mul(mul) + i) % 1000003;
            }
            s
        }
        #[inline(never)]
        pub fn phase_alpha(&self, n: u64) -> u64 { self.phase(n, 31) }
        #[inline(never)]
        pub fn phase_beta(&self, n: u64) -> u64 { self.phase(n, 17) }
        #[inline(never)]
        pub fn phase_gamma(&self, n: u64) -> u64 { self.phase(n, 13) }
    }
}

fn main() {
    let secs: f64 = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(2.0);
    let s = work::Sieve { seed: 7u32 };
    let (mut t, mut x, unit) = ([0f64; 3], 0u64, 100000u64);
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < secs {
        let a = Instant::now(); x ^= s.phase_alpha(2 * unit); t[0] += a.elapsed().as_secs_f64();
        let a = Instant::now(); x ^= s.phase_beta(3 * unit); t[1] += a.elapsed().as_secs_f64();
        let a = Instant::now(); x ^= s.phase_gamma(5 * unit); t[2] += a.elapsed().as_secs_f64();
    }
    let sum = t[0] + t[1] + t[2];
    println!("own: phase_alpha {:.1}\nown: phase_beta {:.1}\nown: phase_gamma {:.1}\n({})",
             100.0 * t[0] / sum, 100.0 * t[1] / sum, 100.0 * t[2] / sum, x);
}
