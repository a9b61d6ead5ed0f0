// A JavaScript program of known shape for V8 CPU profiles
// (node --cpu-prof): outer calls middle, which calls leafA (about two
// thirds of its time) and leafB; an anonymous function starts it.
'use strict';

function leafA(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += Math.sqrt(i);
	return s;
}

function leafB(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += i % 7;
	return s;
}

function middle(n) {
	return leafA(n) + leafB(n / 2);
}

function outer(ms) {
	const end = Date.now() + ms;
	let t = 0;

	while (Date.now() < end)
		t += middle(20000);
	return t;
}

const ms = Number(process.argv[2] || 300);
(function () {
	if (!(outer(ms) > 0))
		process.exitCode = 1;
})();
