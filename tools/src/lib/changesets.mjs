// @ts-check
/** Reading changesets and deciding whether their bumps cover a classification. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** @typedef {'patch' | 'minor' | 'major'} Bump */
const RANK = { none: 0, patch: 1, minor: 2, major: 3 };

/**
 * @typedef {object} Changeset
 * @property {string} file           e.g. ".changeset/brave-cats-sing.md"
 * @property {Map<string, Bump>} releases
 * @property {string} summary
 */

/**
 * Parses one changeset file (YAML front matter of `"name": bump` lines, then a summary).
 * @param {string} text @param {string} file
 * @returns {Changeset}
 */
export function parseChangeset(text, file) {
  const m = /^\s*---\r?\n([\s\S]*?)\r?\n---\s*(?:\r?\n([\s\S]*))?$/.exec(text);
  if (!m) throw new Error(`${file}: not a changeset (expected front matter between "---" lines)`);
  /** @type {Map<string, Bump>} */
  const releases = new Map();
  for (const raw of (m[1] ?? '').split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const r = /^(['"]?)([^'"]+)\1\s*:\s*(['"]?)(patch|minor|major|none)\3\s*$/.exec(line);
    if (!r) throw new Error(`${file}: cannot read the release line "${line}" (expected "\\"@scope/pkg\\": patch|minor|major")`);
    if (r[4] !== 'none') releases.set(/** @type {string} */ (r[2]), /** @type {Bump} */ (r[4]));
  }
  return { file, releases, summary: (m[2] ?? '').trim() };
}

/**
 * Pending changesets in a folder (README.md and config.json are not changesets).
 * @param {string} dir absolute .changeset folder
 * @param {string} [relPrefix]
 * @returns {Changeset[]}
 */
export function readChangesets(dir, relPrefix = '.changeset') {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f.toLowerCase() !== 'readme.md')
    .sort()
    .map((f) => parseChangeset(readFileSync(path.join(dir, f), 'utf8'), `${relPrefix}/${f}`));
}

/**
 * The smallest bump a classification needs. While the version is 0.x, changesets' own rule
 * shifts it down one place: breaking → minor, additive → patch.
 * @param {'identical' | 'additive' | 'breaking'} level @param {string} version
 * @returns {Bump | 'none'}
 */
export function requiredBump(level, version) {
  const zeroMajor = /^0\./.test(version);
  if (level === 'breaking') return zeroMajor ? 'minor' : 'major';
  if (level === 'additive') return zeroMajor ? 'patch' : 'minor';
  return 'none';
}

/** @param {Bump | 'none'} a @param {Bump | 'none'} b */
export const bumpCovers = (a, b) => RANK[a] >= RANK[b];

/** @param {(Bump | 'none')[]} bumps @returns {Bump | 'none'} */
export function maxBump(bumps) {
  return bumps.reduce((acc, b) => (RANK[b] > RANK[acc] ? b : acc), /** @type {Bump | 'none'} */ ('none'));
}

/**
 * What a report change of one package requires, and whether the changesets that count for it and
 * a version already raised cover that.
 * @param {{ name: string, level: 'breaking' | 'additive' | 'identical', version: string, counted: Changeset[], released: Bump | 'none' }} change
 *   `counted`: the changesets that may cover the change (those naming other packages are ignored)
 * @returns {{ need: Bump | 'none', covered: boolean }}
 */
export function coverage({ name, level, version, counted, released }) {
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
 * @param {string | undefined} before @param {string} after
 * @returns {Bump | 'none'}
 */
export function versionBump(before, after) {
  if (!before) return 'none';
  const p = (/** @type {string} */ v) => v.split('-')[0]?.split('.').map(Number) ?? [];
  const [a0 = 0, a1 = 0, a2 = 0] = p(before);
  const [b0 = 0, b1 = 0, b2 = 0] = p(after);
  if (b0 > a0) return 'major';
  if (b0 === a0 && b1 > a1) return 'minor';
  if (b0 === a0 && b1 === a1 && b2 > a2) return 'patch';
  return 'none';
}
