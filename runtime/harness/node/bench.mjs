// SPDX-License-Identifier: GPL-2.0-only
/**
 * `make bench-node`: N confined /bin/true started and reaped from Node
 * (spawnConfined, through a harness of its own) against N plain
 * child_process.spawn of the same program, round-robin in one run (each
 * round one of each, the order alternating), each awaited to its 'close'.
 * Prints the median and mean of each, `ratio node-confined / node-spawn: X`
 * (of the medians; the means' beside it) and the load average before and
 * after.
 *
 * node bench.mjs HARNESS [N]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

import { spawnConfined, status } from './jr2-harness.mjs';

const [harnessBin, countText] = process.argv.slice(2);
const n = Number(countText ?? 400);
if (!harnessBin || !Number.isInteger(n) || n < 1) {
  console.error('usage: node bench.mjs HARNESS [N]: the jr2-harness binary, N rounds');
  process.exit(2);
}
const program = '/bin/true';
const loadavg = () => readFileSync('/proc/loadavg', 'latin1').trim();

const root = mkdtempSync('/tmp/jr2-bench-node-');
const log = openSync(path.join(root, 'harness.log'), 'a');
const harness = spawn(harnessBin, ['serve', '--root', root], { stdio: ['ignore', 'ignore', log] });
try {
  for (let waited = 0; ; waited += 20) {
    try {
      if ((await status({ root })).spawner_ready) break;
    } catch {
      /* not serving yet */
    }
    if (waited > 10000 || harness.exitCode !== null) {
      throw new Error(`the harness did not serve: ${readFileSync(path.join(root, 'harness.log'), 'utf8')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** @param {() => import('node:events').EventEmitter} start */
  const once = (start) => new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = start();
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${program} exited ${code}`));
      else resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    });
  });
  const kinds = {
    'node-spawn': () => spawn(program, [], { stdio: 'pipe' }),
    'node-confined': () => spawnConfined([program], { root }),
  };
  /** @type {Record<string, number[]>} */
  const times = { 'node-spawn': [], 'node-confined': [] };
  /* Warm-up: the first of each pays for loading code. */
  for (const start of Object.values(kinds)) await once(start);
  const before = loadavg();
  for (let round = 0; round < n; round++) {
    const order = round % 2 ? ['node-confined', 'node-spawn'] : ['node-spawn', 'node-confined'];
    for (const kind of order) times[kind].push(await once(kinds[/** @type {keyof kinds} */ (kind)]));
  }
  const after = loadavg();
  /** @param {number[]} xs */
  const stats = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { median: sorted[Math.floor(sorted.length / 2)], mean: xs.reduce((a, b) => a + b, 0) / xs.length };
  };
  const spawnStats = stats(times['node-spawn']);
  const confinedStats = stats(times['node-confined']);
  for (const [kind, s] of [['node-spawn', spawnStats], ['node-confined', confinedStats]]) {
    console.log(`${kind}: ${n} x ${program}: median ${s.median.toFixed(3)} ms, mean ${s.mean.toFixed(3)} ms`);
  }
  /* Of the medians: a start that other work on the machine delays by
   * milliseconds moves a mean, not a median.  The means' ratio beside. */
  console.log(`ratio node-confined / node-spawn: ${(confinedStats.median / spawnStats.median).toFixed(2)} ` +
    `(of the means: ${(confinedStats.mean / spawnStats.mean).toFixed(2)})`);
  console.log(`load average before: ${before}; after: ${after}`);
} finally {
  harness.kill('SIGTERM');
  await new Promise((resolve) => harness.once('exit', resolve));
  rmSync(root, { recursive: true, force: true });
}
