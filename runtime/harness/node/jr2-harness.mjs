// SPDX-License-Identifier: GPL-2.0-only
/**
 * jr2-harness from Node.js, with no native addon: confined programs started
 * through the harness's stream socket (docs/PROTOCOL.md, "The stream
 * socket"), their stdin, stdout and stderr as sockets, their exit status,
 * their signals and their cancel.  An ES module with no dependencies.
 *
 *   import { spawnConfined, status } from './jr2-harness.mjs';
 *   const child = spawnConfined(['make', 'test'], { cwd: '/work', timeout: 60000 });
 *   child.stdout.pipe(process.stdout);
 *   child.on('close', (code, signal) => ...);
 *
 * The harness is found from option `root`, else the environment variable
 * JR2_HARNESS_ROOT, else "/" (as `jr2-harness exec` finds it): its stream
 * socket is <root>/run/jr2/control-stream.sock and its bearer the first line
 * of <root>/run/jr2/control.bearer (option `bearerFile`).
 *
 * A program ends when its ChildProcess says so (kill()), when its
 * AbortSignal aborts or its timeout passes (SIGTERM, then SIGKILL after
 * `killGraceMs`), and when this process goes away: the harness gives a
 * program whose connection closes, and its session, SIGTERM, then SIGKILL
 * after its --stop-grace-ms.
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { constants as osConstants } from 'node:os';
import { PassThrough } from 'node:stream';

const MAGIC = 'JR2H1\n';
/** The harness's bound on a request's frame (request.h, JR2_REQ_MAX_BYTES). */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** The harness's bound on a frame's head: 7 digits and a newline. */
const MAX_HEAD = 8;

/**
 * @typedef {object} HarnessOptions
 * @property {string} [root] the harness's --root (default: env JR2_HARNESS_ROOT, else "/")
 * @property {string} [bearerFile] default: <root>/run/jr2/control.bearer
 */

/**
 * @typedef {HarnessOptions & {
 *   cwd?: string,
 *   secrets?: string[],
 *   signal?: AbortSignal,
 *   timeout?: number,
 *   killSignal?: NodeJS.Signals | number,
 *   killGraceMs?: number,
 * }} SpawnOptions
 */

/**
 * The protected dir of a root: <root>/run/jr2, as jr2_protected_dir_of().
 * @param {HarnessOptions} opts
 * @returns {string}
 */
export function protectedDir(opts = {}) {
  const root = opts.root ?? process.env.JR2_HARNESS_ROOT ?? '/';
  if (!root.startsWith('/')) {
    throw new Error(`root '${root}' is relative; give an absolute path`);
  }
  return `${root.replace(/\/+$/, '')}/run/jr2`;
}

/**
 * @param {HarnessOptions} opts
 * @returns {string}
 */
function readBearer(opts) {
  const file = opts.bearerFile ?? `${protectedDir(opts)}/control.bearer`;
  let text;
  try {
    text = readFileSync(file, 'latin1');
  } catch (err) {
    throw new Error(
      `cannot read the bearer file '${file}' (${/** @type {Error} */ (err).message}); ` +
        'start jr2-harness serve on this root, or pass bearerFile');
  }
  return text.split(/\r?\n/, 1)[0];
}

/**
 * One field: "<key> <length>:<value>\n", the length in bytes.
 * @param {string} key
 * @param {string | number} value
 * @returns {Buffer}
 */
function field(key, value) {
  const bytes = Buffer.from(String(value), 'utf8');
  if (bytes.includes(0)) {
    throw new Error(`${key} '${value}' holds a NUL byte; no field can`);
  }
  return Buffer.concat([Buffer.from(`${key} ${bytes.length}:`), bytes, Buffer.from('\n')]);
}

/**
 * A request in its frame: "<length>\n" then the message.
 * @param {Array<[string, string | number]>} fields
 * @returns {Buffer}
 */
function frame(fields) {
  const body = Buffer.concat([Buffer.from(MAGIC), ...fields.map(([k, v]) => field(k, v))]);
  if (body.length > MAX_REQUEST_BYTES) {
    throw new Error(
      `the request is ${body.length} bytes, more than ${MAX_REQUEST_BYTES}; ` +
        'pass fewer or shorter arguments');
  }
  return Buffer.concat([Buffer.from(`${body.length}\n`), body]);
}

/**
 * Calls onFrame with each whole frame (a string) that comes on socket.
 * @param {net.Socket} socket
 * @param {(text: string) => void} onFrame
 */
function readFrames(socket, onFrame) {
  /** @type {Buffer} */
  let have = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    have = have.length ? Buffer.concat([have, chunk]) : chunk;
    for (;;) {
      const nl = have.indexOf(10);
      if (nl < 0) {
        if (have.length >= MAX_HEAD) socket.destroy(new Error('bad frame head from the harness'));
        return;
      }
      const length = Number(have.subarray(0, nl).toString('latin1'));
      if (!Number.isInteger(length) || length <= 0) {
        socket.destroy(new Error('bad frame head from the harness'));
        return;
      }
      if (have.length < nl + 1 + length) return;
      const text = have.subarray(nl + 1, nl + 1 + length).toString('utf8');
      have = have.subarray(nl + 1 + length);
      onFrame(text);
    }
  });
}

/** Signal names by number, for signalCode. */
const SIGNAL_NAMES = Object.fromEntries(
  Object.entries(osConstants.signals).map(([name, number]) => [number, name]));
/** errno names by number, for an error's code. */
const ERRNO_NAMES = Object.fromEntries(
  Object.entries(osConstants.errno).map(([name, number]) => [number, name]));

/**
 * @param {NodeJS.Signals | number | undefined} signal
 * @returns {number}
 */
function signalNumber(signal) {
  if (signal === undefined) return osConstants.signals.SIGTERM;
  if (typeof signal === 'number') return signal;
  const number = osConstants.signals[/** @type {NodeJS.Signals} */ (signal)];
  if (!number) throw new TypeError(`unknown signal '${signal}'`);
  return number;
}

/**
 * A confined program, as child_process.spawn's ChildProcess has it: stdin,
 * stdout, stderr, stdio, pid (once it runs), exitCode, signalCode, killed,
 * kill(), ref(), unref(); events 'spawn', 'exit', 'close' and 'error'.
 */
export class ConfinedProcess extends EventEmitter {
  /**
   * @param {string[]} argv
   * @param {SpawnOptions} opts
   */
  constructor(argv, opts) {
    super();
    /** @type {PassThrough} */
    this.stdin = new PassThrough();
    /** @type {PassThrough} */
    this.stdout = new PassThrough();
    /** @type {PassThrough} */
    this.stderr = new PassThrough();
    this.stdio = [this.stdin, this.stdout, this.stderr];
    /** @type {number | undefined} */
    this.pid = undefined;
    /** @type {number | null} */
    this.exitCode = null;
    /** @type {NodeJS.Signals | null} */
    this.signalCode = null;
    this.killed = false;
    this.spawnfile = argv[0];
    this.spawnargs = [...argv];
    /** @type {string | undefined} the harness's request id */
    this.id = undefined;
    this._opts = opts;
    this._socketPath = `${protectedDir(opts)}/control-stream.sock`;
    this._bearer = readBearer(opts);
    /** @type {number[]} signals asked for before the program ran */
    this._pending = [];
    this._exited = false;
    this._closed = false;
    this._open = 2; /* stdout's and stderr's sockets, until each closes */
    /** @type {net.Socket[]} */
    this._sockets = [];
    /** @type {NodeJS.Timeout[]} */
    this._timers = [];

    const fields = /** @type {Array<[string, string | number]>} */ ([['op', 'exec'],
      ['bearer', this._bearer], ['cwd', opts.cwd ?? process.cwd()]]);
    for (const name of opts.secrets ?? []) fields.push(['secret', name]);
    for (const arg of argv) fields.push(['arg', arg]);
    const request = frame(fields);

    this._control = net.createConnection(this._socketPath);
    this._control.on('error', (err) => this._fail(err));
    this._control.on('close', () => {
      if (!this._exited && !this._closed) {
        this._fail(new Error('the harness closed the connection without an exit status; see its log'));
      }
    });
    readFrames(this._control, (text) => this._answer(text));
    this._control.write(request);

    if (opts.signal) {
      const abort = () => {
        this._cancel();
        const err = new Error('The operation was aborted', { cause: opts.signal?.reason });
        err.name = 'AbortError';
        /** @type {any} */ (err).code = 'ABORT_ERR';
        this.emit('error', err);
      };
      if (opts.signal.aborted) process.nextTick(abort);
      else {
        opts.signal.addEventListener('abort', abort, { once: true });
        this.once('exit', () => opts.signal?.removeEventListener('abort', abort));
      }
    }
    if (opts.timeout && opts.timeout > 0) {
      this._timers.push(setTimeout(() => this._cancel(), opts.timeout));
    }
  }

  /**
   * One answer of the harness on the control connection.
   * @param {string} text
   */
  _answer(text) {
    let m;
    if ((m = /^attach ([0-9a-f]{32})\n$/.exec(text))) {
      this._attach(m[1]);
    } else if ((m = /^started (\d+) (\d+)\n$/.exec(text))) {
      this.pid = Number(m[1]);
      this.id = m[2];
      this.emit('spawn');
      for (const signo of this._pending.splice(0)) this._signal(signo);
    } else if ((m = /^exit (\d+)(?: signal (\d+))?\n$/.exec(text))) {
      this._exited = true;
      for (const timer of this._timers) clearTimeout(timer);
      if (m[2] !== undefined) {
        this.signalCode = /** @type {NodeJS.Signals} */ (SIGNAL_NAMES[Number(m[2])] ?? `SIG${m[2]}`);
      } else {
        this.exitCode = Number(m[1]);
      }
      this._control.end();
      this.emit('exit', this.exitCode, this.signalCode);
      this._maybeClose();
    } else if ((m = /^error (\d+) ([^]*)$/.exec(text))) {
      const errno = Number(m[1]);
      const err = new Error(`spawn ${this.spawnfile}: ${m[2].trim()}`);
      /** @type {any} */ (err).errno = -errno;
      /** @type {any} */ (err).code = ERRNO_NAMES[errno] ?? `E${errno}`;
      /** @type {any} */ (err).path = this.spawnfile;
      this._fail(err);
    } else if (text.startsWith('refused ')) {
      this._fail(new Error(`the harness refused: ${text.slice(8).trim()}`));
    } else {
      this._fail(new Error(`unexpected answer of the harness: '${text.slice(0, 200)}'`));
    }
  }

  /**
   * The three stdio connections, each naming the exec by its token.
   * @param {string} token
   */
  _attach(token) {
    for (let fd = 0; fd < 3; fd++) {
      const socket = net.createConnection(this._socketPath);
      socket.on('error', () => socket.destroy()); /* EPIPE: the program left */
      socket.write(frame([['op', 'attach'], ['token', token], ['fd', fd]]));
      this._sockets.push(socket);
      if (fd === 0) {
        this.stdin.pipe(socket);
      } else {
        socket.pipe(fd === 1 ? this.stdout : this.stderr);
        /* As a ChildProcess's: 'close' once the program exited and
         * its stdout and stderr closed. */
        socket.on('close', () => {
          const out = fd === 1 ? this.stdout : this.stderr;
          if (!out.writableEnded) out.end();
          this._open--;
          this._maybeClose();
        });
      }
    }
  }

  _maybeClose() {
    if (this._exited && this._open === 0 && !this._closed) {
      this._closed = true;
      this.emit('close', this.exitCode, this.signalCode);
    }
  }

  /** @param {Error} err */
  _fail(err) {
    if (this._closed) return;
    this._closed = true;
    for (const timer of this._timers) clearTimeout(timer);
    for (const socket of this._sockets) socket.destroy();
    this._control.destroy();
    this.stdout.end();
    this.stderr.end();
    this.emit('error', err);
    const errno = /** @type {any} */ (err).errno;
    this.emit('close', typeof errno === 'number' ? errno : -1, null);
  }

  /** Abort or timeout: the kill signal, then SIGKILL after the grace. */
  _cancel() {
    if (this._exited || this._closed) return;
    this.kill(this._opts.killSignal ?? 'SIGTERM');
    this._timers.push(setTimeout(() => this.kill('SIGKILL'), this._opts.killGraceMs ?? 5000));
  }

  /**
   * op signal on a connection of its own.
   * @param {number} signo
   */
  _signal(signo) {
    const socket = net.createConnection(this._socketPath);
    socket.on('error', () => socket.destroy());
    readFrames(socket, () => socket.end());
    socket.end(frame([['op', 'signal'], ['bearer', this._bearer], ['id', /** @type {string} */ (this.id)],
      ['signal', signo]]));
  }

  /**
   * Sends a signal to the program (its process group): false once it
   * exited.  Before it runs, the signal waits for its start.
   * @param {NodeJS.Signals | number} [signal]
   * @returns {boolean}
   */
  kill(signal) {
    const signo = signalNumber(signal);
    if (this._exited || this._closed) return false;
    this.killed = true;
    if (this.id === undefined) this._pending.push(signo);
    else this._signal(signo);
    return true;
  }

  ref() {
    this._control.ref();
    for (const socket of this._sockets) socket.ref();
  }

  unref() {
    this._control.unref();
    for (const socket of this._sockets) socket.unref();
  }
}

/**
 * Starts argv confined by the harness; returns at once, as
 * child_process.spawn does: a harness that cannot be reached, a refusal
 * or a program that cannot be run come as 'error' (then 'close').
 * @param {string[]} argv the program and its arguments (argv[0] along PATH)
 * @param {SpawnOptions} [opts]
 * @returns {ConfinedProcess}
 * @throws {TypeError} argv names no program
 * @throws {Error} the bearer file cannot be read, or the request is larger
 *   than the harness takes (64 KiB)
 */
export function spawnConfined(argv, opts = {}) {
  if (!Array.isArray(argv) || argv.length === 0 || !argv[0]) {
    throw new TypeError('argv must name a program: a non-empty array of strings');
  }
  return new ConfinedProcess(argv.map(String), opts);
}

/**
 * The harness's state, as `jr2-harness status --json` prints it.
 * @param {HarnessOptions} [opts]
 * @returns {Promise<Record<string, unknown>>}
 */
export function status(opts = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(`${protectedDir(opts)}/control-stream.sock`);
    socket.on('error', reject);
    readFrames(socket, (text) => {
      socket.end();
      if (!text.startsWith('status\n')) {
        reject(new Error(`the harness answered: ${text.trim()}`));
        return;
      }
      try {
        resolve(JSON.parse(text.slice(7)));
      } catch (err) {
        reject(err);
      }
    });
    socket.write(frame([['op', 'status'], ['bearer', readBearer(opts)], ['json', 1]]));
  });
}

/**
 * @typedef {HarnessOptions & {
 *   cwd?: string,
 *   signal?: AbortSignal,
 *   timeout?: number,
 *   harnessBin?: string,
 * }} FileToolOptions
 * harnessBin: the jr2-harness the confined program runs (default:
 * "jr2-harness", along the programs' PATH).
 */

/**
 * `jr2-harness file-tool VERB ARGS...` as a confined program, what
 * `jr2-harness read|write|edit` run: it reaches exactly what the shell
 * reaches, and `~` is the programs' HOME.
 * @param {string} verb
 * @param {string[]} args
 * @param {Buffer | string | undefined} input its standard input
 * @param {FileToolOptions} opts
 * @returns {Promise<Buffer>} its standard output
 */
function fileTool(verb, args, input, opts) {
  return new Promise((resolve, reject) => {
    const child = spawnConfined([opts.harnessBin ?? 'jr2-harness', 'file-tool', verb, ...args], opts);
    /** @type {Buffer[]} */
    const out = [];
    /** @type {Buffer[]} */
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) {
        resolve(Buffer.concat(out));
        return;
      }
      const text = Buffer.concat(err).toString().trim();
      const error = new Error(text || `jr2-harness ${verb} ${args[0]}: ${signal ?? `exit status ${code}`}`);
      /** @type {any} */ (error).status = code;
      /** @type {any} */ (error).signal = signal;
      reject(error);
    });
    child.stdin.end(input);
  });
}

/**
 * A file's bytes, read by a confined program (`jr2-harness read`).
 * @param {string} file a path; `~` and `~/x` are the programs' HOME
 * @param {FileToolOptions} [opts]
 * @returns {Promise<Buffer>}
 */
export function readFile(file, opts = {}) {
  return fileTool('read', [file], undefined, opts);
}

/**
 * data becomes the file, whole or not at all where its folder allows a
 * temporary file (`jr2-harness write`).
 * @param {string} file
 * @param {Buffer | string} data
 * @param {FileToolOptions} [opts]
 * @returns {Promise<void>}
 */
export async function writeFile(file, data, opts = {}) {
  await fileTool('write', [file], data, opts);
}

/**
 * oldText, found in the file exactly once, becomes newText
 * (`jr2-harness edit`); otherwise the file stays as it is and the promise
 * rejects with the tool's message.
 * @param {string} file
 * @param {string} oldText
 * @param {string} newText
 * @param {FileToolOptions} [opts]
 * @returns {Promise<void>}
 */
export async function editFile(file, oldText, newText, opts = {}) {
  await fileTool('edit', [file, oldText, newText], undefined, opts);
}
