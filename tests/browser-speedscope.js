#!/usr/bin/env node
/*
 * Opens a speedscope JSON file in the real speedscope web app, in headless
 * Chromium, and checks that the app shows NAME as the hot function:
 *
 *   node tests/browser-speedscope.js CHROMIUM SPEEDSCOPE-RELEASE-DIR FILE NAME
 *
 * (SPEEDSCOPE-RELEASE-DIR is node_modules/speedscope/dist/release.)
 *
 * 1. Left Heavy flame chart: in that view the leftmost column is the
 *    heaviest stack; the mouse goes down it and one of the hover tooltips
 *    must name NAME.
 * 2. Sandwich view: the first row of its table (most self time) is NAME.
 *
 * The flame chart is drawn on a canvas, so names are read where the app
 * shows them to a user as text: the hover tooltip and the sandwich table.
 * Chromium is driven over the DevTools protocol on a pipe, which needs no
 * npm package (Node 20 has no WebSocket client).
 *
 * Prints "ok - ..." or "not ok - ..." per check with "# " diagnostics.
 * Exits 0 when both pass, 1 when speedscope cannot read the file or a check
 * fails, 2 when the browser or the app could not be run at all.
 */
'use strict';
const { spawn } = require('child_process');
const { EventEmitter } = require('events');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');

const DEADLINE_MS = 40000;	/* check-browser.sh's timeout(1) is longer */
const WAIT_MS = 20000;		/* for one thing to show up in the page */
const POLL_MS = 100;
const TYPES = {
	'.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
	'.json': 'application/json', '.wasm': 'application/wasm',
};

/* Could not run the browser or the app: no verdict on the file. */
class Unrunnable extends Error {}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/*
 * The app and the profile from one loopback origin, on a free port:
 * speedscope fetches #profileURL, and pages cannot fetch file:// URLs.
 */
function serve(appDir, profile) {
	const server = http.createServer((req, res) => {
		const url = new URL(req.url, 'http://127.0.0.1');
		/* normalize() of a path from '/' cannot climb out of appDir */
		const file = url.pathname === '/profile.json' ? profile :
			path.join(appDir, path.normalize(url.pathname));
		fs.readFile(file, (err, data) => {
			if (err) {
				res.writeHead(404);
				res.end();
				return;
			}
			const type = TYPES[path.extname(file)] ||
				'application/octet-stream';
			res.writeHead(200, { 'Content-Type': type });
			res.end(data);
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve(server));
	});
}

/*
 * Chromium with the DevTools protocol on its fds 3 (commands in) and 4
 * (replies and events out), each message ended by a NUL. Events are
 * emitted as (params, sessionId) under their method name.
 */
class Browser extends EventEmitter {
	constructor(exe, dataDir) {
		super();
		this.proc = spawn(exe, [
			'--headless', '--no-sandbox', '--disable-dev-shm-usage',
			'--remote-debugging-pipe', '--user-data-dir=' + dataDir,
			'--no-first-run', '--no-default-browser-check',
			'--no-proxy-server', '--window-size=1200,800',
			/* speedscope draws with WebGL: software GL, no GPU here */
			'--enable-unsafe-swiftshader',
			'about:blank',
		], {
			stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
			/* its own process group, so its helpers go with it */
			detached: true,
		});
		this.stderr = '';
		this.nextId = 0;
		this.pending = new Map();
		this.buf = '';
		this.running = true;
		this.exited = new Promise(resolve => {
			this.proc.once('exit', resolve);
			this.proc.once('error', err => {
				this.stderr += String(err);
				resolve();
			});
		});
		this.exited.then(() => {
			this.running = false;
			this.failAll('chromium exited');
		});
		this.proc.stderr.on('data', d => {
			this.stderr = (this.stderr + d).slice(-4000);
		});
		this.proc.stdio[3].on('error', () => {});	/* EPIPE: see exited */
		this.proc.stdio[4].on('data', d => this.receive(d));
	}

	receive(chunk) {
		this.buf += chunk;
		let end;
		while ((end = this.buf.indexOf('\0')) >= 0) {
			const msg = JSON.parse(this.buf.slice(0, end));
			this.buf = this.buf.slice(end + 1);
			const call = this.pending.get(msg.id);
			if (!call) {
				this.emit(msg.method, msg.params, msg.sessionId);
				continue;
			}
			this.pending.delete(msg.id);
			if (msg.error) {
				const why = `${call.method}: ${msg.error.message}`;
				call.reject(new Unrunnable(why));
			} else {
				call.resolve(msg.result);
			}
		}
	}

	failAll(why) {
		for (const call of this.pending.values())
			call.reject(new Unrunnable(`${call.method}: ${why}`));
		this.pending.clear();
	}

	call(method, params = {}, sessionId = undefined) {
		if (!this.running)
			return Promise.reject(new Unrunnable(`${method}: chromium exited`));
		return new Promise((resolve, reject) => {
			const id = ++this.nextId;
			this.pending.set(id, { method, resolve, reject });
			const msg = JSON.stringify({ id, method, params, sessionId });
			this.proc.stdio[3].write(msg + '\0');
		});
	}

	async close() {
		if (this.proc.pid === undefined)
			return;		/* never started */
		if (this.running) {
			const asked = this.call('Browser.close').catch(() => {});
			await Promise.race([asked, sleep(2000)]);
		}
		await Promise.race([this.exited, sleep(3000)]);
		try {
			process.kill(-this.proc.pid, 'SIGKILL');	/* stragglers */
		} catch (err) {
			/* ESRCH: all gone already */
		}
		await this.exited;
	}
}

/* A tab, with what the app said on its console (shown when loading fails). */
async function openPage(browser) {
	const { targetId } = await browser.call('Target.createTarget',
		{ url: 'about:blank' });
	const { sessionId } = await browser.call('Target.attachToTarget',
		{ targetId, flatten: true });
	const page = {
		console: [],
		dialog: null,
		call: (method, params) => browser.call(method, params, sessionId),
		/* runs fn(...args) in the page; fn must be self-contained */
		async eval(fn, ...args) {
			const r = await page.call('Runtime.evaluate', {
				expression: `(${fn})(...${JSON.stringify(args)})`,
				awaitPromise: true, returnByValue: true,
			});
			const e = r.exceptionDetails;
			if (e) {
				const why = e.exception?.description || e.text;
				throw new Unrunnable(`in the page: ${why}`);
			}
			return r.result.value;
		},
		/* fn's first truthy value; null if the app opened a dialog */
		async waitFor(what, fn, ...args) {
			for (const end = Date.now() + WAIT_MS; Date.now() < end;) {
				const value = await page.eval(fn, ...args);
				if (value || page.dialog)
					return value || null;
				await sleep(POLL_MS);
			}
			throw new Unrunnable(`timed out waiting for ${what}`);
		},
	};
	const mine = sid => sid === sessionId;
	browser.on('Runtime.consoleAPICalled', (p, sid) => mine(sid) &&
		page.console.push(p.args.map(a => a.value ?? a.description).join(' ')));
	browser.on('Runtime.exceptionThrown', (p, sid) => mine(sid) &&
		page.console.push(p.exceptionDetails.exception?.description ||
			p.exceptionDetails.text));
	/* speedscope alert()s "Unrecognized format!"; an open dialog blocks the page */
	browser.on('Page.javascriptDialogOpening', (p, sid) => {
		if (!mine(sid))
			return;
		page.dialog = p.message;
		page.console.push(`dialog: ${p.message}`);
		/* a prompt() gets page.promptText (browser-flamegraph.js) */
		page.call('Page.handleJavaScriptDialog',
			{ accept: true, promptText: page.promptText || '' })
			.catch(() => {});
	});
	await page.call('Page.enable');
	await page.call('Runtime.enable');
	return page;
}

/*
 * ---- run in the page ----
 * speedscope's class names are minified: these go by structure and text.
 */

function appState() {
	if (document.body && /Something went wrong/.test(document.body.innerText))
		return 'error';
	/* the title becomes "<name> - speedscope" once a profile is shown */
	return document.title.endsWith(' - speedscope') ? 'loaded' : null;
}

/* The main chart is the canvas lowest on the page (the minimap is above). */
function flameChartBox() {
	const boxes = [...document.querySelectorAll('canvas')]
		.map(c => c.getBoundingClientRect())
		.filter(r => r.width > 0 && r.height > 0)
		.sort((a, b) => b.top - a.top);
	if (!boxes.length)
		return null;
	const { left, top, width, bottom } = boxes[0];
	return { left, top, width, bottom };
}

/*
 * The hover tooltip, after the app has drawn a frame: the one absolutely
 * placed, click-through element whose row is a weight <span>, then the
 * frame's name (then "file:line" in a <div>, when known).
 */
async function readTooltip() {
	await new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve)));
	const ownText = el => [...el.childNodes]
		.filter(n => n.nodeType === Node.TEXT_NODE)
		.map(n => n.textContent).join('').trim();
	for (const el of document.querySelectorAll('div')) {
		const style = getComputedStyle(el);
		const row = el.firstElementChild;
		const weight = row && row.querySelector(':scope > span');
		if (style.position === 'absolute' && style.pointerEvents === 'none' &&
		    weight)
			return { name: ownText(row), weight: weight.textContent.trim() };
	}
	return null;
}

/* The toolbar's tabs are <div>s holding an emoji <span> and their label. */
function clickTab(label) {
	for (const el of document.querySelectorAll('div')) {
		const text = [...el.childNodes]
			.filter(n => n.nodeType === Node.TEXT_NODE)
			.map(n => n.textContent).join('').trim();
		if (text === label) {
			el.click();
			return true;
		}
	}
	return false;
}

/* The sandwich table opens sorted by self time, most first. */
function sandwichTop() {
	for (const tr of document.querySelectorAll('table tr')) {
		const td = [...tr.querySelectorAll('td')].map(c => c.textContent.trim());
		if (td.length === 3)
			return { total: td[0], self: td[1], name: td[2] };
	}
	return null;
}

/* ---- the checks ---- */

/* The tooltips down the flame chart's leftmost column, root first. */
async function heaviestStack(page) {
	const box = await page.waitFor('the flame chart', flameChartBox);
	const x = box.left + Math.max(3, box.width * 0.02);
	const stack = [];
	let misses = 0;
	/* frames are 20px high; a few misses in a row end the stack */
	for (let y = box.top + 5; y < box.bottom && misses < 3; y += 10) {
		await page.call('Input.dispatchMouseEvent',
			{ type: 'mouseMoved', x, y });
		const tip = await page.eval(readTooltip);
		if (!tip) {
			misses += stack.length > 0;
			continue;
		}
		misses = 0;
		if (!stack.length || stack[stack.length - 1].name !== tip.name)
			stack.push(tip);
	}
	return stack;
}

function report(ok, what, diag) {
	console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
	const lines = [].concat(diag || []).join('\n').split('\n');
	for (const line of lines.filter(Boolean).slice(0, 20))
		console.log(`# ${line}`);
	return ok;
}

async function check(browser, url, want) {
	const page = await openPage(browser);
	const nav = await page.call('Page.navigate', { url });
	if (nav.errorText)
		throw new Unrunnable(`${url}: ${nav.errorText}`);
	const state = await page.waitFor('speedscope to show the file', appState);
	if (state !== 'loaded' || page.dialog)
		return report(false, 'speedscope reads the file',
			page.console.slice(-10));

	const stack = await heaviestStack(page);
	const hot = stack.find(t => t.name === want);
	const flame = report(!!hot,
		`Left Heavy flame chart: hovering the heaviest stack shows ${want}`,
		[`tooltips: ${stack.map(t => t.name).join(' > ') || '(none)'}`,
			`${want}: ${hot ? hot.weight : 'not shown'}`]);

	if (!await page.eval(clickTab, 'Sandwich'))
		throw new Unrunnable('no Sandwich tab in the toolbar');
	const top = await page.waitFor('the sandwich table', sandwichTop);
	const sandwich = report(top.name === want,
		`Sandwich table: ${want} has the most self time`,
		`first row: ${top.name}, self ${top.self}, total ${top.total}`);
	return flame && sandwich;
}

async function main() {
	const [exe, appDir, profile, want] = process.argv.slice(2);
	if (!want) {
		console.error('usage: browser-speedscope.js CHROMIUM ' +
			'SPEEDSCOPE-RELEASE-DIR FILE NAME');
		return 2;
	}
	const server = await serve(appDir, profile);
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'profkit-chromium.'));
	const browser = new Browser(exe, dataDir);
	const base = `http://127.0.0.1:${server.address().port}`;
	const url = `${base}/index.html#profileURL=` +
		`${encodeURIComponent(base + '/profile.json')}&view=left-heavy`;

	/* a deadline or a signal ends the checks, then the cleanup below runs */
	let timer;
	const stopped = new Promise((resolve, reject) => {
		timer = setTimeout(() => reject(new Unrunnable(
			`timed out after ${DEADLINE_MS / 1000}s`)), DEADLINE_MS);
		/* on(), not once(): timeout(1) passes ^C on, so it can come twice */
		for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
			process.on(sig, () => reject(new Unrunnable(`stopped by ${sig}`)));
	});
	let status;
	try {
		const ok = await Promise.race([check(browser, url, want), stopped]);
		status = ok ? 0 : 1;
	} catch (err) {
		if (!(err instanceof Unrunnable))
			throw err;
		/* Chromium's last words, but for its usual D-Bus complaints */
		report(false, `speedscope in ${path.basename(exe)}: ${err.message}`,
			browser.stderr.split('\n')
				.filter(l => l && !/dbus/.test(l)).slice(-5));
		status = 2;
	} finally {
		clearTimeout(timer);
		await browser.close();
		server.close();
		fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
	}
	return status;
}

/* tests/browser-flamegraph.js drives Chromium the same way */
module.exports = { Browser, Unrunnable, openPage, report, sleep };

if (require.main === module) {
	main().then(status => process.exit(status), err => {
		console.log(`not ok - ${err.stack}`);
		process.exit(2);
	});
}
