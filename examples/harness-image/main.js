// SPDX-License-Identifier: GPL-2.0-only
// The image's Harness process (jr2-harness serve -- node main.js): a small
// stand-in for jr2's Node Harness.  It reaches the control channel under
// $JR2_HARNESS_ROOT (jr2-harness(1), THE HARNESS PROCESS), starts one
// program through the runtime, says what it printed, and lives until serve
// stops it.  Its lines go to stderr: the harness's log.
'use strict';
const { spawn } = require('child_process');

const root = process.env.JR2_HARNESS_ROOT || '/';
const harness = '/opt/jr2/bin/jr2-harness';

function run(argv) {
	const child = spawn(harness, ['exec', '--root', root, '--', ...argv], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let out = '';
	child.stdout.on('data', (chunk) => { out += chunk; });
	child.on('close', (code) => {
		console.error(`main.js: the program said: ${out.trim()} ` +
			`(exit ${code})`);
	});
}

console.error(`main.js: Node ${process.version}, pid ${process.pid}, ` +
	`HOME ${process.env.HOME}`);
run(['/bin/sh', '-c', 'echo hello from a program']);
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1 << 30);
