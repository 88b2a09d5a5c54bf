import { type ChildProcess, spawn } from 'node:child_process';
import { LineFramer } from './LineFramer.js';
import { LocalRequestFailure } from './LocalRequestFailure.js';

/** Options of a {@link StdioProcessTransport}. */
export interface StdioProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the child. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  /** The longest line (one JSON-RPC message) accepted from the server, in bytes. */
  readonly maxMessageBytes: number;
  /** Turns one line into a JSON-RPC message; throws for anything that is not one. */
  readonly parse: (line: string) => unknown;
  /** Receives the child's stderr. */
  readonly onStderr?: (chunk: string) => void;
}

/** How long a child may take to exit after its stdin closed, before SIGTERM. */
const STDIN_GRACE_MS = 300;
/** How long a child may take to exit after SIGTERM, before SIGKILL. */
const TERM_GRACE_MS = 1000;

/**
 * Whether a child gets a process group of its own (POSIX): a Ctrl+C in the terminal, which signals
 * the whole foreground group, then reaches this process alone, whose shutdown ends the calls in
 * flight `cancelled` and the children with them. (On Windows `detached` opens a console instead.)
 */
const OWN_PROCESS_GROUP = process.platform !== 'win32';

/** The signals whose default action ends this process: the children are killed on the way out. */
const FATAL_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Every child started here and not yet exited: killed when this process exits. */
const liveChildren = new Set<ChildProcess>();
let exitHooksInstalled = false;

/** Sends a signal to the child's process group (its own, see OWN_PROCESS_GROUP), else to the child. */
function signalChild(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (OWN_PROCESS_GROUP && pid !== undefined) {
    try {
      process.kill(-pid, signal);
      return;
    } catch {
      // The group is gone (or was never made): signal the child itself.
    }
  }
  try {
    child.kill(signal);
  } catch {
    // Already gone.
  }
}

function killAllChildren(): void {
  for (const live of liveChildren) signalChild(live, 'SIGKILL');
}

/**
 * On a fatal signal that nobody else in this process handles, kills the children and ends this
 * process the way the signal would have. Runs first (prepended), so that it sees every other
 * listener, a `once` one included; when there is one, the application's own shutdown (which
 * closes the registry) decides, and the exit hook still kills what is left when it exits.
 */
function onFatalSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAllChildren();
  for (const fatal of FATAL_SIGNALS) process.removeListener(fatal, onFatalSignal);
  process.kill(process.pid, signal);
}

function watchChild(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  if (!exitHooksInstalled) {
    exitHooksInstalled = true;
    // A process that exits without closing its registry must not leave servers behind under PID 1.
    process.once('exit', killAllChildren);
    // A child in a group of its own no longer dies with a Ctrl+C of the terminal: when that signal
    // ends this process (no handler of the application's), it must take the children along.
    if (OWN_PROCESS_GROUP) for (const signal of FATAL_SIGNALS) process.prependListener(signal, onFatalSignal);
  }
}

/**
 * The stdio transport of an MCP server: a child process spoken to in newline-delimited JSON-RPC.
 * Shaped like the SDK's `Transport`, without importing it (sdk.ts hands it the SDK's parser).
 *
 * @remarks
 * Replaces the SDK's StdioClientTransport for two reasons. A line over the SDK's buffer limit
 * makes that transport close the whole connection, failing every call in flight; here
 * ({@link LineFramer}) only the call it answers fails, by a {@link LocalRequestFailure}. And its
 * `close()` forgets the process before it has exited, so a second `close()` (the SDK client calls
 * it twice after a failed `initialize`) returns at once while the child lives on; here `close()`
 * is one promise, settled only when the child has exited: stdin closed, then SIGTERM, then SIGKILL
 * (to the child's process group).
 *
 * The child runs in a process group of its own (POSIX), so that a Ctrl+C in the terminal reaches
 * this process only, never the server behind a call in flight; it is still killed when this
 * process exits, or dies of SIGINT, SIGTERM or SIGHUP that the application does not handle.
 *
 * @internal
 */
export class StdioProcessTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: never) => void;
  readonly #options: StdioProcessOptions;
  readonly #framer: LineFramer;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #closedNotified = false;

  constructor(options: StdioProcessOptions) {
    this.#options = options;
    this.#framer = new LineFramer(options.maxMessageBytes);
  }

  /** The child's process id once started, else null. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /**
   * Always null: the child's stderr goes to `onStderr`.
   *
   * @remarks
   * Also what makes the MCP client's version negotiation treat this transport as stdio (it looks
   * for `pid` and `stderr`): a `server/discover` probe that gets no answer then means a server of
   * an older revision, which the client falls back to with `initialize`, instead of an outage.
   */
  get stderr(): null {
    return null;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) return Promise.reject(new Error('StdioProcessTransport already started'));
    return new Promise<void>((resolve, reject) => {
      const o = this.#options;
      const child = spawn(o.command, [...o.args], {
        env: { ...o.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        detached: OWN_PROCESS_GROUP,
        ...(o.cwd !== undefined && { cwd: o.cwd }),
      });
      this.#child = child;
      this.#exited = new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) done();
        else child.once('exit', () => done());
        // A child that never started never exits.
        child.once('error', () => {
          if (child.pid === undefined) done();
        });
      });
      child.once('spawn', () => {
        watchChild(child);
        resolve();
      });
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('close', () => this.#notifyClosed());
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
      child.stderr?.on('data', (chunk: Buffer) => o.onStderr?.(String(chunk)));
    });
  }

  send(message: unknown): Promise<void> {
    const stdin = this.#closing === undefined ? this.#child?.stdin : undefined;
    if (stdin === undefined || stdin === null || stdin.destroyed || !stdin.writable) {
      return Promise.reject(new Error('the server process is not running'));
    }
    return new Promise<void>((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends the child and resolves once it has exited. Every call returns the same promise. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const child = this.#child;
    const exited = this.#exited;
    if (child !== undefined && exited !== undefined) {
      const running = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
      if (running()) {
        try {
          child.stdin?.end();
        } catch {
          // The pipe is already broken; the signals below still apply.
        }
        await raceTimer(exited, STDIN_GRACE_MS);
      }
      if (running()) {
        signalChild(child, 'SIGTERM');
        await raceTimer(exited, TERM_GRACE_MS);
      }
      if (running()) signalChild(child, 'SIGKILL');
      await exited;
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
    }
    this.#framer.clear();
    this.#notifyClosed();
  }

  #notifyClosed(): void {
    if (this.#closedNotified) return;
    this.#closedNotified = true;
    this.onclose?.();
  }

  #read(chunk: Buffer): void {
    this.#framer.push(
      chunk,
      (line) => {
        let message: unknown;
        try {
          message = this.#options.parse(line);
        } catch (error) {
          // Not a JSON-RPC message: the SDK's transport skips such lines too; say so.
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        this.onmessage?.(message as never);
      },
      (bytes, id) => {
        const failure = LocalRequestFailure.tooLarge(bytes, this.#framer.maxLineBytes, 'exact');
        if (id === undefined) {
          this.onerror?.(new Error(`the server sent a message without a request id that ${failure.detail}; it was dropped`));
          return;
        }
        this.onmessage?.(failure.toResponse(id) as never);
      },
    );
  }
}

function raceTimer(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}
