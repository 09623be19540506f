// SPDX-License-Identifier: GPL-2.0-only
/**
 * The Node module against a real harness (`node --test`, a step of `make
 * test`): stdio through the stream socket, exit statuses and signals, and
 * every way a program is cancelled (kill, AbortSignal, timeout, SIGKILL of
 * the client), each on a program that exits on SIGTERM and on one that
 * ignores it; the ends are read from /proc (a pid counts as the same
 * process only while its start time in /proc/PID/stat is the same).
 *
 * The harness: JR2_BIN_DIR/jr2-harness (default: build/bin of this tree),
 * `serve --root` a fresh folder under /tmp, as root (its spawner makes mount
 * namespaces).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  editFile, readFile, spawnConfined, status, writeFile,
} from '../jr2-harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const binDir = process.env.JR2_BIN_DIR ?? path.resolve(here, '../../../../build/bin');
const harnessBin = path.join(binDir, 'jr2-harness');
const moduleUrl = new URL('../jr2-harness.mjs', import.meta.url).href;
const GRACE_MS = 1000;
const asRoot = process.getuid?.() === 0;
const skip = !asRoot ? 'the harness runs as root here (its spawner makes mount namespaces); run as root'
  : !existsSync(harnessBin) ? `${harnessBin} is not built: run make` : false;
/* Each test's options: skipped with the reason, or ended if it hangs. */
const T = { skip, timeout: 60000 };

/** @type {string} */
let root;
/** @type {import('node:child_process').ChildProcess | undefined} */
let harness;

/** @param {number} ms */
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

before(async () => {
  if (skip) return;
  root = mkdtempSync('/tmp/jr2-node-test-');
  /* The root is a frozen folder (an ancestor of the protected dir): the
   * programs write only the files it held when the harness started. */
  writeFileSync(path.join(root, 'node-x'), '');
  const log = openSync(path.join(root, 'harness.log'), 'a');
  harness = spawn(harnessBin, ['serve', '--root', root, '--stop-grace-ms', String(GRACE_MS)],
    { stdio: ['ignore', 'ignore', log] });
  for (let waited = 0; ; waited += 20) {
    try {
      const s = await status({ root });
      if (s.spawner_ready) break;
    } catch {
      /* not serving yet */
    }
    if (waited > 10000 || harness.exitCode !== null) {
      throw new Error(`the harness did not serve within 10 s: ${readFileSync(path.join(root, 'harness.log'), 'utf8')}`);
    }
    await delay(20);
  }
});

after(async () => {
  if (!harness) return;
  const ended = new Promise((resolve) => harness?.once('exit', resolve));
  harness.kill('SIGTERM');
  await ended;
  rmSync(root, { recursive: true, force: true });
});

/**
 * The start time of pid (field 22 of /proc/PID/stat), or null: gone.
 * @param {number} pid
 * @returns {string | null}
 */
function startOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? null : fields[19];
  } catch {
    return null;
  }
}

/**
 * Resolves true once the process (pid, as it was at `start`) is gone, false
 * when it still runs after ms.
 * @param {number} pid
 * @param {string} start
 * @param {number} ms
 */
async function goneWithin(pid, start, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (startOf(pid) !== start) return true;
    if (Date.now() >= deadline) return false;
    await delay(10);
  }
}

/**
 * Runs a child to its 'close'; what it wrote, how it ended, its errors.
 * @param {import('../jr2-harness.mjs').ConfinedProcess} child
 * @param {Buffer | string} [input]
 */
function finish(child, input) {
  /** @type {Buffer[]} */ const out = [];
  /** @type {Buffer[]} */ const err = [];
  /** @type {Error[]} */ const errors = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => err.push(d));
  child.on('error', (e) => errors.push(e));
  if (input !== undefined) child.stdin.end(input);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({
      code, signal, errors, stdout: Buffer.concat(out), stderr: Buffer.concat(err),
    }));
  });
}

/**
 * The first line a child writes to stdout.
 * @param {import('../jr2-harness.mjs').ConfinedProcess} child
 * @returns {Promise<string>}
 */
function firstLine(child) {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (/** @type {Buffer} */ d) => {
      text += d;
      if (text.includes('\n')) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(text.slice(0, text.indexOf('\n')));
      }
    };
    child.stdout.on('data', onData);
    child.on('error', reject);
  });
}

/* A program that prints "PID CHILD" (a child of its process group, once
 * it runs sleep: a signal that comes to a shell's child before its exec
 * may meet the trap it is about to reset) and exits 3 on SIGTERM, or
 * ignores it (then only SIGKILL ends either). */
const READY = 'sleep 1000 & s=$!; ' +
  'until [ "$(cat /proc/$s/comm 2>/dev/null)" = sleep ]; do :; done; echo $$ $s; wait; wait';
const PROGRAM = {
  catch: `trap "exit 3" TERM; ${READY}`,
  ignore: `trap "" TERM; ${READY}`,
};

test('stdout, stderr and the exit code', T, async () => {
  const r = await finish(spawnConfined(['/bin/sh', '-c', 'echo out; echo err >&2; exit 7'], { root }));
  assert.deepEqual(r.errors, []);
  assert.equal(r.code, 7);
  assert.equal(r.signal, null);
  assert.equal(r.stdout.toString(), 'out\n');
  assert.equal(r.stderr.toString(), 'err\n');
});

test('10 MB through stdin and stdout, 10 MB on stderr, none lost', T, async () => {
  const input = randomBytes(10 * 1024 * 1024);
  const r = await finish(spawnConfined(['/bin/sh', '-c', 'head -c 10485760 /dev/zero >&2; cat'], { root }), input);
  assert.equal(r.code, 0);
  assert.equal(r.stdout.length, input.length);
  assert.equal(createHash('sha256').update(r.stdout).digest('hex'),
    createHash('sha256').update(input).digest('hex'));
  assert.equal(r.stderr.length, 10 * 1024 * 1024);
  assert.ok(r.stderr.every((b) => b === 0));
});

test('the cwd, and a program that cannot be found', T, async () => {
  const r = await finish(spawnConfined(['pwd'], { root, cwd: '/usr' }));
  assert.equal(r.stdout.toString(), '/usr\n');
  const missing = await finish(spawnConfined(['/nonexistent/program'], { root }));
  assert.equal(missing.errors.length, 1);
  assert.equal(/** @type {any} */ (missing.errors[0]).code, 'ENOENT');
});

test('an exit status of 143 is no signal; a signal is one', T, async () => {
  const exited = await finish(spawnConfined(['/bin/sh', '-c', 'exit 143'], { root }));
  assert.equal(exited.code, 143);
  assert.equal(exited.signal, null);
  const killed = await finish(spawnConfined(['/bin/sh', '-c', 'kill -KILL $$'], { root }));
  assert.equal(killed.code, null);
  assert.equal(killed.signal, 'SIGKILL');
});

test('kill() passes each signal on', T, async () => {
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH']) {
    const number = osConstants.signals[/** @type {NodeJS.Signals} */ (sig)];
    const child = spawnConfined(['/bin/sh', '-c',
      `trap 'exit ${number}' ${sig.slice(3)}; echo ready; while :; do sleep 0.05; done`], { root });
    assert.equal(await firstLine(child), 'ready');
    assert.equal(child.kill(/** @type {NodeJS.Signals} */ (sig)), true);
    const r = await finish(child);
    assert.equal(r.signal, null, sig);
    assert.equal(r.code, number, sig);
  }
  /* The default action: killed by it. */
  const sleeper = spawnConfined(['sleep', '1000'], { root });
  sleeper.on('spawn', () => sleeper.kill('SIGTERM'));
  const r = await finish(sleeper);
  assert.equal(r.signal, 'SIGTERM');
  assert.equal(r.code, null);
});

/**
 * A program of `mode` cancelled by `how`; the program and its child gone.
 * @param {'catch' | 'ignore'} mode
 * @param {(child: import('../jr2-harness.mjs').ConfinedProcess) => void} how
 * @param {object} opts
 */
async function cancelled(mode, how, opts = {}) {
  const child = spawnConfined(['/bin/sh', '-c', PROGRAM[mode]], { root, killGraceMs: 500, ...opts });
  const [pid, sub] = (await firstLine(child)).split(' ').map(Number);
  const starts = [startOf(pid), startOf(sub)];
  assert.notEqual(starts[0], null); /* control: both run */
  assert.notEqual(starts[1], null);
  const done = finish(child);
  how(child);
  const r = await done;
  assert.equal(await goneWithin(pid, /** @type {string} */ (starts[0]), 6000), true, 'the program');
  assert.equal(await goneWithin(sub, /** @type {string} */ (starts[1]), 6000), true, 'its child');
  return r;
}

for (const mode of /** @type {const} */ (['catch', 'ignore'])) {
  test(`kill('SIGTERM') then SIGKILL, a program that ${mode === 'catch' ? 'catches' : 'ignores'} SIGTERM, 10 of 10`, T, async () => {
    for (let trial = 0; trial < 10; trial++) {
      const r = await cancelled(mode, (child) => {
        child.kill('SIGTERM');
        if (mode === 'ignore') setTimeout(() => child.kill('SIGKILL'), 100);
      });
      assert.deepEqual([r.code, r.signal], mode === 'catch' ? [3, null] : [null, 'SIGKILL']);
    }
  });

  test(`AbortSignal, a program that ${mode === 'catch' ? 'catches' : 'ignores'} SIGTERM`, T, async () => {
    const ac = new AbortController();
    const r = await cancelled(mode, () => ac.abort(), { signal: ac.signal });
    assert.equal(r.errors[0]?.name, 'AbortError');
    assert.deepEqual([r.code, r.signal], mode === 'catch' ? [3, null] : [null, 'SIGKILL']);
  });

  test(`timeout, a program that ${mode === 'catch' ? 'catches' : 'ignores'} SIGTERM`, T, async () => {
    const started = Date.now();
    const r = await cancelled(mode, () => {}, { timeout: 300 });
    assert.ok(Date.now() - started >= 300);
    assert.deepEqual([r.code, r.signal], mode === 'catch' ? [3, null] : [null, 'SIGKILL']);
  });

  test(`SIGKILL of the client, a program that ${mode === 'catch' ? 'catches' : 'ignores'} SIGTERM, 10 of 10`, T, async () => {
    for (let trial = 0; trial < 10; trial++) {
      const client = spawn(process.execPath, ['--input-type=module', '-e',
        `import { spawnConfined } from ${JSON.stringify(moduleUrl)};
         const c = spawnConfined(['/bin/sh', '-c', ${JSON.stringify(PROGRAM[mode])}], { root: ${JSON.stringify(root)} });
         c.stdout.pipe(process.stdout);`], { stdio: ['ignore', 'pipe', 'inherit'] });
      const line = await new Promise((resolve) => {
        let text = '';
        client.stdout?.on('data', (d) => {
          text += d;
          if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
        });
      });
      const [pid, sub] = String(line).split(' ').map(Number);
      const starts = [startOf(pid), startOf(sub)];
      assert.notEqual(starts[0], null);
      assert.notEqual(starts[1], null);
      const killedAt = Date.now();
      client.kill('SIGKILL');
      if (mode === 'ignore') {
        /* SIGTERM is ignored: SIGKILL comes after the harness's grace. */
        assert.equal(await goneWithin(pid, /** @type {string} */ (starts[0]), GRACE_MS / 2), false);
      }
      assert.equal(await goneWithin(pid, /** @type {string} */ (starts[0]), 6000), true, `trial ${trial}: the program`);
      assert.equal(await goneWithin(sub, /** @type {string} */ (starts[1]), 6000), true, `trial ${trial}: its child`);
      assert.ok(Date.now() - killedAt < 6000);
    }
  });
}

/* The end of the exec connection is its close (docs/PROTOCOL.md, Cancel):
 * a client that only shuts its side down (socket.end(): shutdown(SHUT_WR))
 * cancels the program, and gets no exit status. */
test('a half-close of the exec connection cancels, as a close does', T, async () => {
  const r = await cancelled('catch', (child) => child._control.end());
  assert.match(String(r.errors[0]?.message), /closed the connection without an exit status/);
});

test('servers started on purpose outlive their command\'s normal end', T, async () => {
  const r = await finish(spawnConfined(['/bin/sh', '-c',
    'setsid sleep 1000 </dev/null >/dev/null 2>&1 & a=$!; ' +
    'nohup sleep 1000 </dev/null >/dev/null 2>&1 & echo $a $!'], { root }));
  assert.equal(r.code, 0);
  const pids = r.stdout.toString().trim().split(' ').map(Number);
  const starts = pids.map(startOf);
  for (const [i, pid] of pids.entries()) {
    assert.notEqual(starts[i], null);
    assert.equal(await goneWithin(pid, /** @type {string} */ (starts[i]), GRACE_MS + 500), false);
    process.kill(pid, 'SIGKILL');
  }
});

test('status() lists a running program', T, async () => {
  const child = spawnConfined(['sleep', '1000'], { root });
  await new Promise((resolve) => child.on('spawn', resolve));
  const s = await status({ root });
  assert.ok(Array.isArray(s.programs));
  assert.ok(/** @type {Array<{pid: number, id: number}>} */ (s.programs)
    .some((p) => p.pid === child.pid && String(p.id) === child.id));
  const done = finish(child);
  child.kill('SIGKILL');
  assert.equal((await done).signal, 'SIGKILL');
});

test('JR2_HARNESS_ROOT names the root when no option does', T, async () => {
  const saved = process.env.JR2_HARNESS_ROOT;
  process.env.JR2_HARNESS_ROOT = root;
  try {
    const r = await finish(spawnConfined(['true']));
    assert.equal(r.code, 0);
  } finally {
    if (saved === undefined) delete process.env.JR2_HARNESS_ROOT;
    else process.env.JR2_HARNESS_ROOT = saved;
  }
});

test('the file tools reach what the shell reaches; ~ is the programs\' HOME', T, async () => {
  const tools = { root, harnessBin };
  const home = (await finish(spawnConfined(['sh', '-c', 'printf %s "$HOME"'], { root }))).stdout.toString();
  assert.ok(home.startsWith('/'), `the programs' HOME: '${home}'`);
  await assert.rejects(readFile('~/jr2-node-none', tools),
    (err) => String(err).includes(`${home}/jr2-node-none`));
  /* Made before the harness started: written in place, as the shell does. */
  const file = path.join(root, 'node-x');
  await writeFile(file, 'one two two\n', tools);
  const r = await finish(spawnConfined(['cat', file], { root }));
  assert.equal(r.stdout.toString(), 'one two two\n');
  await editFile(file, 'one', 'three', tools);
  assert.equal((await readFile(file, tools)).toString(), 'three two two\n');
  await assert.rejects(editFile(file, 'two', 'four', tools),
    (err) => /** @type {any} */ (err).status === 1);
  assert.equal((await readFile(file, tools)).toString(), 'three two two\n');
  /* The Stand-ins file, through a link a program could make. */
  const link = path.join(root, 'to-stand-ins');
  symlinkSync(path.join(root, 'run/jr2/stand-ins'), link);
  await assert.rejects(readFile(link, tools),
    (err) => /** @type {any} */ (err).status === 1 && /Permission denied/.test(String(err)));
});
