#!/usr/bin/env node
/*
 * Opens a flame graph SVG in headless Chromium and does what a user does
 * with it, printing what the page then shows as one JSON object:
 *
 *   node tests/browser-flamegraph.js CHROMIUM FILE.svg SEARCH ZOOM
 *
 *   title     the title's text
 *   frames    the frames shown: [{name, x, y, width}] (rect geometry)
 *   search    after clicking "Search" and typing SEARCH in the prompt: the
 *             "Matched" text and the names of the highlighted frames
 *   zoomed    the frames shown after clicking the frame named ZOOM
 *
 * tests/run-flamegraph-browser.sh judges them. Exits 0 with the JSON, 2
 * when the browser could not be run. Chromium is driven as
 * tests/browser-speedscope.js drives it (DevTools protocol on a pipe).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Browser, Unrunnable, openPage, report, sleep } =
	require('./browser-speedscope.js');

const DEADLINE_MS = 40000;

/* ---- run in the page ---- */

/* The frames a user sees: each <g> with a title and a rect, not hidden. */
function shownFrames() {
	const frames = [];
	for (const g of document.querySelectorAll('g')) {
		const title = g.querySelector(':scope > title');
		const rect = g.querySelector(':scope > rect');
		if (!title || !rect || getComputedStyle(g).display === 'none' ||
		    g.classList.contains('hide') || g.classList.contains('hidden'))
			continue;
		frames.push({
			name: title.textContent.replace(/ \([^()]*\)$/, ''),
			x: parseFloat(rect.getAttribute('x')),
			y: parseFloat(rect.getAttribute('y')),
			width: parseFloat(rect.getAttribute('width')),
			fill: rect.getAttribute('fill'),
		});
	}
	return frames.length ? frames : null;
}

/* Where to click an element: the middle of its box, in page pixels. */
function centerOf(selector, name) {
	let el = selector && document.querySelector(selector);
	if (name) {
		el = [...document.querySelectorAll('g')].find(g => {
			const t = g.querySelector(':scope > title');
			return t && t.textContent.replace(/ \([^()]*\)$/, '') === name &&
				g.querySelector(':scope > rect');
		});
		el = el && el.querySelector(':scope > rect');
	}
	if (!el)
		return null;
	const r = el.getBoundingClientRect();
	return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

function matchedText() {
	const m = document.getElementById('matched');
	return m && m.textContent.trim() ? m.textContent.trim() : null;
}

/* ---- the session ---- */

async function click(page, at) {
	for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased'])
		await page.call('Input.dispatchMouseEvent',
			{ type, x: at.x, y: at.y, button: 'left', clickCount: 1 });
}

async function session(browser, url, term, zoom) {
	const page = await openPage(browser);
	page.promptText = term;	/* the Search button prompt()s for it */
	const nav = await page.call('Page.navigate', { url });
	if (nav.errorText)
		throw new Unrunnable(`${url}: ${nav.errorText}`);
	const frames = await page.waitFor('the frames', shownFrames);
	const title = await page.eval(() =>
		(document.getElementById('title') || {}).textContent || null);

	const button = await page.eval(centerOf, '#search', null);
	if (!button)
		throw new Unrunnable('no Search button');
	await click(page, button);
	await sleep(100);
	if (!page.dialog)
		throw new Unrunnable('the Search button asked for nothing');
	page.dialog = null;	/* answered: not a failure to load */
	const matched = await page.waitFor('"Matched"', matchedText);
	const highlighted = (await page.eval(shownFrames))
		.filter(f => f.fill === 'rgb(230,0,230)').map(f => f.name);

	const target = await page.eval(centerOf, null, zoom);
	if (!target)
		throw new Unrunnable(`no frame named ${zoom}`);
	await click(page, target);
	await sleep(300);	/* the zoom is drawn at once; let it settle */
	const zoomed = await page.eval(shownFrames);
	return { title, frames, search: { matched, highlighted }, zoomed };
}

async function main() {
	const [exe, svg, term, zoom] = process.argv.slice(2);
	if (!zoom) {
		console.error('usage: browser-flamegraph.js CHROMIUM FILE.svg SEARCH ZOOM');
		return 2;
	}
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'profkit-chromium.'));
	const browser = new Browser(exe, dataDir);
	let timer;
	const stopped = new Promise((resolve, reject) => {
		timer = setTimeout(() => reject(new Unrunnable(
			`timed out after ${DEADLINE_MS / 1000}s`)), DEADLINE_MS);
	});
	try {
		const url = 'file://' + path.resolve(svg);
		const seen = await Promise.race([session(browser, url, term, zoom),
			stopped]);
		console.log(JSON.stringify(seen));
		return 0;
	} catch (err) {
		if (!(err instanceof Unrunnable))
			throw err;
		report(false, `${path.basename(svg)} in ${path.basename(exe)}: ${err.message}`,
			browser.stderr.split('\n').filter(l => l && !/dbus/.test(l)).slice(-5));
		return 2;
	} finally {
		clearTimeout(timer);
		await browser.close();
		fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
	}
}

main().then(status => process.exit(status), err => {
	console.log(`not ok - ${err.stack}`);
	process.exit(2);
});
