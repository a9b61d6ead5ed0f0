// SPDX-License-Identifier: MIT
// Check speedscope files against speedscope's own JSON schema with ajv,
// and for what speedscope's importer also needs: frame indexes in range,
// one weight per sample, events that open and close in order.
//
//   node tests/validate-speedscope.js FILE...
//
// The schema is $SPEEDSCOPE_SCHEMA, or else the file-format-schema.json of
// the speedscope package that require() finds (through NODE_PATH), so CI
// can do:
//
//   npm install --prefix "$dir" speedscope ajv
//   NODE_PATH="$dir/node_modules" node tests/validate-speedscope.js out.json
//
// Exit status: 0 all valid, 1 one is not, 2 usage, unreadable file or no
// ajv/schema (the test script skips on 2 before it gets there).
'use strict';

const fs = require('fs');

function fail(status, message) {
	process.stderr.write('validate-speedscope: ' + message + '\n');
	process.exit(status);
}

function readJson(path) {
	try {
		return JSON.parse(fs.readFileSync(path, 'utf8'));
	} catch (e) {
		return fail(2, path + ': ' + e.message);
	}
}

function loadAjv() {
	try {
		const mod = require('ajv');
		return mod.default || mod;	// ajv 8 is an ES module default
	} catch (e) {
		return fail(2, 'cannot load ajv (npm install ajv; set NODE_PATH)');
	}
}

function schemaPath() {
	if (process.env.SPEEDSCOPE_SCHEMA)
		return process.env.SPEEDSCOPE_SCHEMA;
	try {
		return require.resolve('speedscope/dist/release/file-format-schema.json');
	} catch (e) {
		return fail(2, 'no schema: set SPEEDSCOPE_SCHEMA or install speedscope');
	}
}

// What the schema cannot say but speedscope's importer insists on.
function semanticErrors(data) {
	const nframes = data.shared.frames.length;
	const errors = [];
	const frameOk = (f) => Number.isInteger(f) && f >= 0 && f < nframes;

	data.profiles.forEach((p, i) => {
		const where = '/profiles/' + i + ': ';
		if (p.type === 'sampled') {
			if (p.samples.length !== p.weights.length)
				errors.push(where + 'samples and weights differ in length');
			if (p.samples.some((s) => !s.every(frameOk)))
				errors.push(where + 'a sample names a frame that does not exist');
			if (p.weights.some((w) => w < 0))
				errors.push(where + 'a weight is negative');
			return;
		}
		const open = [];
		let at = p.startValue;
		for (const e of p.events) {
			if (!frameOk(e.frame))
				errors.push(where + 'an event names a frame that does not exist');
			if (e.at < at)
				errors.push(where + 'events go back in time at ' + e.at);
			at = e.at;
			if (e.type === 'O')
				open.push(e.frame);
			else if (open.pop() !== e.frame)
				errors.push(where + 'a close at ' + e.at + ' is not of the innermost open frame');
		}
		if (open.length)
			errors.push(where + open.length + ' frames are never closed');
		if (at > p.endValue)
			errors.push(where + 'events after endValue');
	});
	return errors.slice(0, 10);
}

const files = process.argv.slice(2);
if (!files.length)
	fail(2, 'usage: node validate-speedscope.js FILE...');

const Ajv = loadAjv();
// strict off: the schema, generated from TypeScript, has "title"s ajv flags
const validate = new Ajv({ allErrors: true, strict: false })
	.compile(readJson(schemaPath()));
let bad = 0;

for (const file of files) {
	const data = readJson(file);
	const errors = validate(data) ? semanticErrors(data) :
		validate.errors.slice(0, 10).map((e) =>
			(e.instancePath || '/') + ': ' + e.message);

	if (!errors.length) {
		process.stdout.write(file + ': valid\n');
		continue;
	}
	bad++;
	process.stdout.write(file + ': not valid\n');
	for (const e of errors)
		process.stdout.write('  ' + e + '\n');
}
process.exit(bad ? 1 : 0);
