import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, readFile, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AppendStepInput, FinishRunInput } from '../store/RunStore.js';

/** The first field of every spool line: the format's version. */
const SPOOL_VERSION = 1;
const FILE_PATTERN = /^spool-(\d+)-(\d+)-([0-9a-f]+)\.jsonl$/;
/**
 * The first line of a spool file: how many entries were acknowledged into it, rewritten in place
 * (same length) with every entry before its fsync. A file cut short keeps it, so the entries lost
 * after the cut can be counted. A JSON object whose number is padded with spaces to a fixed width.
 */
const COUNT_PREFIX = `{"v":${SPOOL_VERSION},"type":"count","acknowledged":`;
const COUNT_WIDTH = 16;
function countLine(acknowledged: number): Buffer {
  return Buffer.from(`${COUNT_PREFIX}${String(acknowledged).padEnd(COUNT_WIDTH, ' ')}}\n`, 'utf8');
}
const COUNT_LINE_BYTES = countLine(0).length;
/** What a spool file that was set aside (`deliverSpool`'s `setAside`) is renamed to: its name with this after it. */
export const SET_ASIDE_SUFFIX = '.set-aside';

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

/** What {@link readSpoolFile} read. */
export interface SpoolFileRead {
  readonly entries: SpoolEntry[];
  /** A last line without its newline (1 or 0). */
  readonly torn: number;
  /** Lines that could not be read. */
  readonly unreadable: number;
  /**
   * Acknowledged entries that are not in the file: the file's count line says more were
   * acknowledged than it holds (it was cut short). 0 for a file without a count line (written
   * before it existed).
   */
  readonly lost: number;
}

/**
 * Reads a spool file's entries in order.
 *
 * @remarks
 * A last line without its newline is either the write a crash cut short (never acknowledged) or
 * the place where the file was cut (everything from there on was acknowledged and is gone): the
 * file's first line, the count of entries acknowledged into it, tells them apart — entries it
 * counts that the file does not hold are `lost`. (The count is written with the entry, before the
 * one fsync of both, so a power cut during the last write may count that write too: the count errs
 * on the side of a loss, by one at most.) The torn line itself is counted in `torn` and left out.
 * Any other line that does not parse is counted in `unreadable` and left out.
 */
export async function readSpoolFile(path: string): Promise<SpoolFileRead> {
  const text = await readFile(path, 'utf8');
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  const entries: SpoolEntry[] = [];
  let unreadable = 0;
  let acknowledged: number | null = null;
  for (const [index, line] of lines.entries()) {
    if (line === '') continue;
    if (index === 0 && line.startsWith(COUNT_PREFIX)) {
      acknowledged = parseCount(line);
      if (acknowledged !== null) continue;
    }
    const entry = parseEntry(line);
    if (entry === null) unreadable++;
    else entries.push(entry);
  }
  const lost = acknowledged === null ? 0 : Math.max(0, acknowledged - entries.length - unreadable);
  return { entries, torn: last === '' ? 0 : 1, unreadable, lost };
}

function parseCount(line: string): number | null {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    const count = value['acknowledged'];
    return value['type'] === 'count' && Number.isSafeInteger(count) && (count as number) >= 0 ? (count as number) : null;
  } catch {
    return null;
  }
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
  /** Entries acknowledged into the current file (its count line says so). */
  #acknowledged = 0;
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
      const count = countLine(this.#acknowledged + 1);
      try {
        await handle.write(bytes, 0, bytes.length, this.#size);
        // the count goes with the entry, under the same fsync
        await handle.write(count, 0, count.length, 0);
        await handle.sync();
      } catch (error) {
        // cut a line written half-way (or written but not synced) back off, and the count back:
        // the file holds only acknowledged entries
        await handle.truncate(this.#size).catch(() => undefined);
        const back = countLine(this.#acknowledged);
        await handle.write(back, 0, back.length, 0).catch(() => undefined);
        throw error;
      }
      this.#size += bytes.length;
      this.#acknowledged++;
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
    this.#acknowledged = 0;
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
    this.#acknowledged = 0;
    try {
      await this.#handle.write(countLine(0), 0, COUNT_LINE_BYTES, 0);
      await this.#handle.sync();
    } catch (error) {
      await this.#forget();
      await unlink(path).catch(() => undefined);
      throw error;
    }
    this.#size = COUNT_LINE_BYTES;
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
