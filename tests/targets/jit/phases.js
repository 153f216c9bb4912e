// Three phases of CPU-bound work, 2:3:5, run in rounds so that the JIT's
// warm-up and any drift spread over all three. Each call is timed by the
// program's own clock; at exit it prints each phase's share of the sum,
// "node: phaseAlpha 20.1%", to judge a profile's shares by.
//
// Each phase is a function of its own with its loop inside, called a few
// times per round from a loop too short for TurboFan to optimize: TurboFan
// compiles each phase (on-stack replacement first, then whole) but never
// inlines one into a caller, so each keeps a frame of its own.
'use strict';

// The argument scales the run time: 1 is about 3 s, in 30 rounds.
const rounds = Math.max(1, Math.round(30 * Number(process.argv[2] || 1)));
const unit = 4.4e6;

function phaseAlpha(n) {
	let x = 0x12345678 | 0, s = 0;
	for (let i = 0; i < n; i++) {
		x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
		s = (s + Math.imul(x, 0x9e3779b1)) | 0;
	}
	return s;
}

function phaseBeta(n) {
	let x = 0x2468ace0 | 0, s = 0;
	for (let i = 0; i < n; i++) {
		x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
		s = (s ^ Math.imul(x, 0x85ebca6b)) | 0;
	}
	return s;
}

function phaseGamma(n) {
	let x = 0x13579bdf | 0, s = 0;
	for (let i = 0; i < n; i++) {
		x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
		s = (s + Math.imul(x, 0xc2b2ae35)) | 0;
	}
	return s;
}

const phases = [[phaseAlpha, 2], [phaseBeta, 3], [phaseGamma, 5]];
const spent = [0n, 0n, 0n];
let sink = 0;
for (let r = 0; r < rounds; r++) {
	for (let p = 0; p < phases.length; p++) {
		const t0 = process.hrtime.bigint();
		sink = (sink + phases[p][0](phases[p][1] * unit)) | 0;
		spent[p] += process.hrtime.bigint() - t0;
	}
}

const sum = Number(spent[0] + spent[1] + spent[2]);
for (let p = 0; p < phases.length; p++)
	console.log(`node: ${phases[p][0].name} ${(100 * Number(spent[p]) / sum).toFixed(1)}%`);
console.log(`node: phases ${(sum / 1e9).toFixed(2)} s, result ${sink}`);
