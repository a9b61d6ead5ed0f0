// SPDX-License-Identifier: MIT
// Where a timeline file shows each thread busy: one "tid start end" line
// (nanoseconds on perf's clock) per run of samples of its outermost frame,
// for tests/run-off-cpu-writers.sh to hold against the off-CPU intervals
// perf script prints.
//
//   node tests/timeline-blocks.js FORMAT FILE FIRST
//
// FORMAT is speedscope (evented: from a frame's opening at depth 0 to its
// closing; sampled: each sample's weights laid end to end, an empty
// sample being a gap), firefox (a sample lasts until the next one; a
// sample without a stack ends it) or chrome-trace (the outermost complete
// events, written in microseconds to the nanosecond). FIRST is the time of
// the recording's first sample, where sampled profiles and the Firefox
// Profiler's times begin.
'use strict';

const fs = require('fs');
const [format, file, firstArg] = process.argv.slice(2);
const data = JSON.parse(fs.readFileSync(file, 'utf8'));
const first = Number(firstArg);

function speedscope() {
	for (const p of data.profiles) {
		const tid = p.name.split(' ').pop();
		if (p.type === 'evented') {
			let depth = 0, start = 0;
			for (const e of p.events) {
				if (e.type === 'O' && depth++ === 0)
					start = e.at;
				else if (e.type === 'C' && --depth === 0)
					console.log(tid, start, e.at);
			}
			continue;
		}
		let at = first;
		p.samples.forEach((stack, i) => {
			if (stack.length)
				console.log(tid, at, at + p.weights[i]);
			at += p.weights[i];
		});
	}
}

function firefox() {
	for (const t of data.threads) {
		const s = t.samples;
		for (let i = 0; i < s.length; i++) {
			if (s.stack[i] === null)
				continue;
			const at = (ms) => first + Math.round(ms * 1e6);
			const end = i + 1 < s.length ? at(s.time[i + 1]) : NaN;
			console.log(t.tid, at(s.time[i]), end);
		}
	}
}

function chromeTrace() {
	const byThread = new Map();
	for (const e of data.traceEvents) {
		if (e.ph !== 'X')
			continue;
		if (!byThread.has(e.tid))
			byThread.set(e.tid, []);
		byThread.get(e.tid).push(e);
	}
	for (const [tid, events] of byThread) {
		events.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
		let end = -1;
		for (const e of events) {
			if (e.ts < end)
				continue;	// inside an outer one
			console.log(tid, Math.round(e.ts * 1000),
				    Math.round(e.ts * 1000) + Math.round(e.dur * 1000));
			end = e.ts + e.dur;
		}
	}
}

({ speedscope, firefox, 'chrome-trace': chromeTrace })[format]();
