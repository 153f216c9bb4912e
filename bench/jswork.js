// jswork.js [SECONDS]: a Node.js workload to hold ctprof's JIT names and
// shares against perf's (README, Languages and runtimes).
//
// Rounds of a recursive call, string building, Map inserts and a walk,
// JSON out and back, and a sort with a JS comparator, until SECONDS (8 by
// default) have passed: JIT-compiled JS, V8's builtins and runtime, its
// allocator and collector (munmap, memset), all in one profile.  Run with
// node --perf-basic-prof, which names the JIT code in /tmp/perf-PID.map.
// Prints "jswork: CHECKSUM ROUNDS".
'use strict';

function fib(n) {
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function strwork(n) {
	let s = '';
	for (let i = 0; i < n; i++)
		s += String.fromCharCode(97 + (i * 7) % 26);
	return s.split('').reverse().join('').length;
}

function mapwork(n) {
	const m = new Map();
	let t = 0;
	for (let i = 0; i < n; i++)
		m.set('k' + i, i);
	for (const v of m.values())
		t += v;
	return t;
}

function jsonwork(n) {
	const a = [];
	for (let i = 0; i < n; i++)
		a.push({ id: i, name: 'x' + i, tags: [i, i + 1] });
	return JSON.parse(JSON.stringify(a)).length;
}

function sortwork(n) {
	const a = [];
	for (let i = 0; i < n; i++)
		a.push((i * 2654435761) % 1000003);
	a.sort((x, y) => x - y);
	return a[0];
}

const seconds = Number(process.argv[2] || 8);
const end = Date.now() + seconds * 1000;
let sum = 0, rounds = 0;
while (Date.now() < end) {
	sum += fib(22) + strwork(20000) + mapwork(20000) + jsonwork(5000) + sortwork(20000);
	rounds++;
}
console.log(`jswork: ${sum} ${rounds}`);
