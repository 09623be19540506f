// SPDX-License-Identifier: GPL-2.0-only
// The image's Harness process (jr2-harness serve -- node main.mjs): a small
// stand-in for jr2's Node Harness.  It starts one program through the
// runtime with spawnConfined() of the installed Node module (no client
// process per program: the harness's control-stream.sock,
// docs/PROTOCOL.md), which finds the harness under $JR2_HARNESS_ROOT
// (jr2-harness(1), THE HARNESS PROCESS); it says the program's pid and
// request id, what it printed and its exit code, and lives until serve
// stops it.  The module lies under /opt/jr2, a read-only tree of the
// image's config, as everything the Harness process loads must (E8).
// Its lines go to stderr: the harness's log.
import { spawnConfined } from '/opt/jr2/share/jr2/node/jr2-harness.mjs';

console.error(`main.mjs: Node ${process.version}, pid ${process.pid}, ` +
	`HOME ${process.env.HOME}`);
// The program prints its own pid ($$ of the shell that is the program):
// the pid of the 'spawn' event is the harness's, and the same.
const child = spawnConfined(['/bin/sh', '-c', 'echo "hello from a program, pid $$"']);
let out = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => { out += chunk; });
child.on('spawn', () => {
	console.error(`main.mjs: spawnConfined started pid ${child.pid}, request id ${child.id}`);
});
child.on('error', (err) => {
	console.error(`main.mjs: spawnConfined failed: ${err.message}`);
});
child.on('close', (code, signal) => {
	console.error(`main.mjs: the program said: ${out.trim()} ` +
		`(exit ${signal ?? code})`);
});
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1 << 30);
