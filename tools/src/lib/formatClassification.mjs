// @ts-check
/** The classification of a surface change as text, for the gate, `api:diff` and the history check. */

/** @typedef {import('./classify.mjs').Classification} Classification */
/** @typedef {import('./classify.mjs').ChangeItem} ChangeItem */

/**
 * Human-readable classification, capped at `limit` entries per section.
 * @param {string} packageName @param {Classification} c
 * @param {{ limit?: number, advice?: string }} [opts]
 */
export function formatClassification(packageName, c, opts = {}) {
  const limit = opts.limit ?? 40;
  const out = [`${packageName}: ${c.level}${c.initial ? ' (initial surface: no report at the base)' : ''}`];
  /** @param {string} title @param {ChangeItem[]} items @param {(i: ChangeItem) => string[]} fmt */
  const section = (title, items, fmt) => {
    if (items.length === 0) return;
    out.push(`  ${title} (${items.length}):`);
    for (const i of items.slice(0, limit)) out.push(...fmt(i));
    if (items.length > limit) out.push(`    … and ${items.length - limit} more`);
  };
  const tag = (/** @type {ChangeItem} */ i) => `${i.internal ? ' [internal, not semver-covered]' : ''}`;
  const indent = (/** @type {string | undefined} */ t, /** @type {string} */ label) =>
    (t ?? '').split('\n').map((l, idx) => `        ${idx === 0 ? label : ' '.repeat(label.length)}${l}`);
  if (!c.initial) {
    section('removed', c.removed, (i) => [`    - ${i.display}${tag(i)}`, ...indent(i.was, 'was: ')]);
    section('changed', c.changed, (i) => [`    ~ ${i.display} — ${i.level}: ${i.reason}${tag(i)}`, ...indent(i.was, 'was: '), ...indent(i.now, 'now: ')]);
  }
  section('added', c.added, (i) => [`    + ${i.display}${i.level === 'breaking' ? ` — breaking: ${i.reason}` : ''}${tag(i)}`]);
  if (opts.advice) out.push(`  → ${opts.advice}`);
  return out.join('\n');
}
