/** Reading changesets and deciding whether their bumps cover a classification. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type Bump = 'patch' | 'minor' | 'major';
const RANK = { none: 0, patch: 1, minor: 2, major: 3 };

export interface Changeset {
  /** e.g. ".changeset/brave-cats-sing.md" */
  file: string;
  releases: Map<string, Bump>;
  summary: string;
}

/**
 * Parses one changeset file (YAML front matter of `"name": bump` lines, then a summary).
 */
export function parseChangeset(text: string, file: string): Changeset {
  const m = /^\s*---\r?\n([\s\S]*?)\r?\n---\s*(?:\r?\n([\s\S]*))?$/.exec(text);
  if (!m) throw new Error(`${file}: not a changeset (expected front matter between "---" lines)`);
  const releases: Map<string, Bump> = new Map();
  for (const raw of (m[1] ?? '').split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const r = /^(['"]?)([^'"]+)\1\s*:\s*(['"]?)(patch|minor|major|none)\3\s*$/.exec(line);
    if (!r) throw new Error(`${file}: cannot read the release line "${line}" (expected "\\"@scope/pkg\\": patch|minor|major")`);
    if (r[4] !== 'none') releases.set(r[2] as string, r[4] as Bump);
  }
  return { file, releases, summary: (m[2] ?? '').trim() };
}

/**
 * Pending changesets in a folder (README.md and config.json are not changesets).
 * @param dir absolute .changeset folder
 */
export function readChangesets(dir: string, relPrefix: string = '.changeset'): Changeset[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f.toLowerCase() !== 'readme.md')
    .sort()
    .map((f) => parseChangeset(readFileSync(path.join(dir, f), 'utf8'), `${relPrefix}/${f}`));
}

/**
 * The smallest bump a classification needs. While the version is 0.x, changesets' own rule
 * shifts it down one place: breaking → minor, additive → patch.
 */
export function requiredBump(level: 'identical' | 'additive' | 'breaking', version: string): Bump | 'none' {
  const zeroMajor = /^0\./.test(version);
  if (level === 'breaking') return zeroMajor ? 'minor' : 'major';
  if (level === 'additive') return zeroMajor ? 'patch' : 'minor';
  return 'none';
}

export const bumpCovers = (a: Bump | 'none', b: Bump | 'none') => RANK[a] >= RANK[b];

export function maxBump(bumps: (Bump | 'none')[]): Bump | 'none' {
  return bumps.reduce((acc, b) => (RANK[b] > RANK[acc] ? b : acc), 'none' as Bump | 'none');
}

/**
 * What a report change of one package requires, and whether the changesets that count for it and
 * a version already raised cover that.
 *   `counted`: the changesets that may cover the change (those naming other packages are ignored)
 */
export function coverage({
  name,
  level,
  version,
  counted,
  released,
}: {
  name: string;
  level: 'breaking' | 'additive' | 'identical';
  version: string;
  counted: Changeset[];
  released: Bump | 'none';
}): { need: Bump | 'none'; covered: boolean } {
  const need = requiredBump(level, version);
  const bumps = counted.flatMap((cs) => {
    const bump = cs.releases.get(name);
    return bump === undefined ? [] : [bump];
  });
  return { need, covered: bumpCovers(maxBump([...bumps, released]), need) };
}

/**
 * The bump already applied to package.json between base and now (a release commit made by
 * `changeset version` consumes the changesets but raises the version).
 */
export function versionBump(before: string | undefined, after: string): Bump | 'none' {
  if (!before) return 'none';
  const p = (v: string) => v.split('-')[0]?.split('.').map(Number) ?? [];
  const [a0 = 0, a1 = 0, a2 = 0] = p(before);
  const [b0 = 0, b1 = 0, b2 = 0] = p(after);
  if (b0 > a0) return 'major';
  if (b0 === a0 && b1 > a1) return 'minor';
  if (b0 === a0 && b1 === a1 && b2 > a2) return 'patch';
  return 'none';
}
