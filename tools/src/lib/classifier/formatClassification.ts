/** The classification of a surface change as text, for the gate, `api:diff` and the history check. */
import type { ChangeItem, Classification } from './classify.ts';

/**
 * Human-readable classification, capped at `limit` entries per section.
 */
export function formatClassification(packageName: string, c: Classification, opts: { limit?: number; advice?: string } = {}) {
  const limit = opts.limit ?? 40;
  const out = [`${packageName}: ${c.level}${c.initial ? ' (initial surface: no report at the base)' : ''}`];
  const section = (title: string, items: ChangeItem[], fmt: (i: ChangeItem) => string[]) => {
    if (items.length === 0) return;
    out.push(`  ${title} (${items.length}):`);
    for (const i of items.slice(0, limit)) out.push(...fmt(i));
    if (items.length > limit) out.push(`    … and ${items.length - limit} more`);
  };
  const tag = (i: ChangeItem) => `${i.internal ? ' [internal, not semver-covered]' : ''}`;
  const indent = (t: string | undefined, label: string) =>
    (t ?? '').split('\n').map((l, idx) => `        ${idx === 0 ? label : ' '.repeat(label.length)}${l}`);
  if (!c.initial) {
    section('removed', c.removed, (i) => [`    - ${i.display}${tag(i)}`, ...indent(i.was, 'was: ')]);
    section('changed', c.changed, (i) => [
      `    ~ ${i.display} — ${i.level}: ${i.reason}${tag(i)}`,
      ...indent(i.was, 'was: '),
      ...indent(i.now, 'now: '),
    ]);
  }
  section('added', c.added, (i) => [`    + ${i.display}${i.level === 'breaking' ? ` — breaking: ${i.reason}` : ''}${tag(i)}`]);
  if (opts.advice) out.push(`  → ${opts.advice}`);
  return out.join('\n');
}
