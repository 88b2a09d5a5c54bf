import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, readFile, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AppendStepInput, FinishRunInput } from '../store/RunStore.js';

/** The first field of every spool line: the format's version. */
const SPOOL_VERSION = 1;
const FILE_PATTERN = /^spool-(\d+)-(\d+)-([0-9a-f]+)\.jsonl$/;

/**
 * One entry of a spool file: a step or a final status that waits for its store.
 */
export type SpoolEntry =
  | {
      readonly type: 'step';
      readonly runId: string;
      /** The sequence the step gets in its run. */
      readonly sequence: number;
      readonly step: Omit<AppendStepInput, 'sequence'>;
    }
  | {
      readonly type: 'finish';
      readonly runId: string;
      readonly finish: FinishRunInput;
    };

/**
 * Where spool files go when no folder is given: `$RUNLEDGER_SPOOL_DIR`, else `~/.runledger/spool`.
 *
 * @public
 */
export function defaultSpoolDir(): string {
  const fromEnv = process.env['RUNLEDGER_SPOOL_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.runledger', 'spool');
}

/** The process id that wrote a spool file, read from its name; null for a name that is not a spool file's. */
export function spoolFileOwner(name: string): number | null {
  const match = FILE_PATTERN.exec(name);
  return match === null ? null : Number(match[1]);
}

/** Tells whether a process of this machine is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** The spool files of a folder, oldest first; none when the folder does not exist. */
export async function listSpoolFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => FILE_PATTERN.test(name))
    .sort((a, b) => Number(FILE_PATTERN.exec(a)![2]) - Number(FILE_PATTERN.exec(b)![2]) || (a < b ? -1 : 1))
    .map((name) => join(dir, name));
}

/**
 * Reads a spool file's entries in order.
 *
 * @remarks
 * A last line without its newline is the write a crash cut short; it was never acknowledged, so
 * it is left out and counted in `torn`. Any other line that does not parse is counted in
 * `unreadable` and left out.
 */
export async function readSpoolFile(path: string): Promise<{ entries: SpoolEntry[]; torn: number; unreadable: number }> {
  const text = await readFile(path, 'utf8');
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  const entries: SpoolEntry[] = [];
  let unreadable = 0;
  for (const line of lines) {
    if (line === '') continue;
    const entry = parseEntry(line);
    if (entry === null) unreadable++;
    else entries.push(entry);
  }
  return { entries, torn: last === '' ? 0 : 1, unreadable };
}

function parseEntry(line: string): SpoolEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const entry = value as Record<string, unknown>;
  if (entry['v'] !== SPOOL_VERSION || typeof entry['runId'] !== 'string') return null;
  if (entry['type'] === 'step' && Number.isSafeInteger(entry['sequence']) && typeof entry['step'] === 'object' && entry['step'] !== null) {
    return {
      type: 'step',
      runId: entry['runId'],
      sequence: entry['sequence'] as number,
      step: entry['step'] as Omit<AppendStepInput, 'sequence'>,
    };
  }
  if (entry['type'] === 'finish' && typeof entry['finish'] === 'object' && entry['finish'] !== null) {
    return { type: 'finish', runId: entry['runId'], finish: entry['finish'] as FinishRunInput };
  }
  return null;
}

/**
 * The spool of one process in one folder: an append-only file of JSON lines, each fsynced before
 * its write resolves. Made on the first write; removed once everything in it was delivered.
 */
export class SpoolWriter {
  static readonly #byDir = new Map<string, SpoolWriter>();

  /** The one writer of this process for a folder. */
  static forDir(dir: string): SpoolWriter {
    let writer = SpoolWriter.#byDir.get(dir);
    if (writer === undefined) {
      writer = new SpoolWriter(dir);
      SpoolWriter.#byDir.set(dir, writer);
    }
    return writer;
  }

  readonly dir: string;
  #path: string | null = null;
  #handle: FileHandle | null = null;
  /** The file's length after the last write that was synced. */
  #size = 0;
  #chain: Promise<unknown> = Promise.resolve();
  /** Entries written to the current file and not yet delivered. */
  #undelivered = 0;
  #exitHook: (() => void) | null = null;

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** The file entries go to now, or null before the first write. */
  get path(): string | null {
    return this.#path;
  }

  /** Entries spooled and not yet delivered. */
  get undelivered(): number {
    return this.#undelivered;
  }

  /** Appends an entry and resolves once it is on disk (fsynced); returns the file's path. */
  write(entry: SpoolEntry): Promise<string> {
    const line = `${JSON.stringify({ v: SPOOL_VERSION, ...entry })}\n`;
    const bytes = Buffer.from(line, 'utf8');
    return this.#serial(async () => {
      // a file that `runledger spool deliver --all` delivered and removed under us: start a new one
      if (this.#handle !== null && (await this.#handle.stat()).nlink === 0) await this.#forget();
      if (this.#handle === null) await this.#create();
      const handle = this.#handle!;
      try {
        await handle.write(bytes, 0, bytes.length, this.#size);
        await handle.sync();
      } catch (error) {
        // cut a line written half-way (or written but not synced) back off: the file holds only
        // acknowledged entries
        await handle.truncate(this.#size).catch(() => undefined);
        throw error;
      }
      this.#size += bytes.length;
      this.#undelivered++;
      return this.#path!;
    });
  }

  /** Notes that `count` entries were delivered; the file is removed when none is left. */
  delivered(count: number): Promise<void> {
    return this.#serial(async () => {
      this.#undelivered = Math.max(0, this.#undelivered - count);
      if (this.#undelivered > 0 || this.#handle === null) return;
      const path = this.#path!;
      await this.#forget();
      await unlink(path).catch(() => undefined);
    });
  }

  /** Closes the current file and forgets it (the next write starts a new one). */
  async #forget(): Promise<void> {
    const handle = this.#handle;
    this.#handle = null;
    this.#path = null;
    this.#size = 0;
    this.#undelivered = 0;
    await handle?.close().catch(() => undefined);
    if (this.#exitHook !== null) process.off('exit', this.#exitHook);
    this.#exitHook = null;
  }

  async #create(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const name = `spool-${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}.jsonl`;
    const path = join(this.dir, name);
    this.#handle = await open(path, 'wx', 0o600);
    this.#path = path;
    this.#size = 0;
    // the new name must survive a power cut too
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    this.#exitHook = () => {
      if (this.#undelivered > 0) {
        process.stderr.write(
          `runledger: ${this.#undelivered} recorded entries wait in the spool file ${path}; deliver them with \`runledger spool deliver --spool-dir ${this.dir}\`\n`,
        );
      }
    };
    process.on('exit', this.#exitHook);
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#chain.then(fn);
    this.#chain = result.catch(() => undefined);
    return result;
  }
}
