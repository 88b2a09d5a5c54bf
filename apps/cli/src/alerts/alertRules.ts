// The alert rules file the operator writes (JSON): its shape, its rules, and reading it with
// errors that name the field and the rule. The shape is documented in docs/alerts.md.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CliSetupError } from '../commandKit/CliSetupError.js';
import { durationMs } from '../commandKit/reachBack.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** A span like 30s, 10m, 1h, 7d or 2w in ms, or null when it is not one (or under a second). @internal */
export function alertSpanMs(value: string): number | null {
  const ms = durationMs(value, UNIT_MS);
  return ms === null || ms < 1_000 ? null : ms;
}

/** A span like 30s, 10m, 1h, 7d or 2w, at least one second; read as ms. */
const span = z.string().transform((value, ctx) => {
  const ms = alertSpanMs(value);
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: `must be a duration like 30s, 10m, 1h, 7d or 2w (at least 1s), got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return ms;
});

const ratio = z.number().min(0, 'must be a number from 0 to 1').max(1, 'must be a number from 0 to 1');
const count = z.number().int('must be a whole number').min(1, 'must be at least 1');
const base = {
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit'),
  /** Only this MCP server (its id); default every server. */
  server: z.string().min(1, 'must not be empty').optional(),
};

const flakyRule = z.strictObject({
  ...base,
  kind: z.literal('flaky'),
  window: span,
  failureRate: ratio.optional(),
  minCalls: count.optional(),
});
const failureRateRule = z.strictObject({ ...base, kind: z.literal('failure-rate'), above: ratio, window: span, minCalls: count });
const p95Rule = z.strictObject({
  ...base,
  kind: z.literal('p95'),
  aboveMs: z.number().positive('must be a number of ms above 0'),
  window: span,
  minCalls: count.optional(),
});
const stalledRunRule = z.strictObject({ id: base.id, kind: z.literal('stalled-run'), after: span });
const mayHaveExecutedRule = z.strictObject({ ...base, kind: z.literal('may-have-executed'), window: span });

const rule = z.discriminatedUnion('kind', [flakyRule, failureRateRule, p95Rule, stalledRunRule, mayHaveExecutedRule], {
  error: (issue) =>
    issue.code === 'invalid_union' ? 'must be one of "flaky", "failure-rate", "p95", "stalled-run", "may-have-executed"' : undefined,
});

const webhook = z.strictObject({
  name: base.id,
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  /** `json`: the generic body; `slack`: `{ text }` (Slack incoming webhooks and the many tools that read it). */
  format: z.enum(['json', 'slack'], 'must be "json" or "slack"').default('json'),
});

const rulesFile = z
  .strictObject({
    webhooks: z.array(webhook).default([]),
    rules: z.array(rule).min(1, 'must hold at least one rule'),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.rules.forEach((r, i) => {
      if (seen.has(r.id)) ctx.addIssue({ code: 'custom', path: ['rules', i, 'id'], message: `must be unique, "${r.id}" is used twice` });
      seen.add(r.id);
    });
    const names = new Set<string>();
    file.webhooks.forEach((w, i) => {
      if (names.has(w.name))
        ctx.addIssue({ code: 'custom', path: ['webhooks', i, 'name'], message: `must be unique, "${w.name}" is used twice` });
      names.add(w.name);
    });
  });

/** One alert rule, read (spans in ms). @internal */
export type AlertRule = z.output<typeof rule>;
/** The kinds of alert rule. @internal */
export type AlertRuleKind = AlertRule['kind'];
/** One webhook of the rules file. @internal */
export type AlertWebhook = z.output<typeof webhook>;
/** A rules file, read. @internal */
export type AlertRules = z.output<typeof rulesFile>;

/** A rules file that cannot be read or breaks a rule: a setup to fix (the CLI exits 2). @internal */
export class AlertRulesError extends CliSetupError {
  constructor(message: string) {
    super(message);
    this.name = 'AlertRulesError';
  }
}

/** The path of an issue as the file spells it: `rules[2].above` (with the rule's id when known). */
function where(input: unknown, path: readonly PropertyKey[]): string {
  let text = '';
  let node: unknown = input;
  for (const key of path) {
    text += typeof key === 'number' ? `[${key}]` : `${text === '' ? '' : '.'}${String(key)}`;
    node = node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key as string] : undefined;
    if (typeof key === 'number' && node !== null && typeof node === 'object') {
      const id = (node as Record<string, unknown>)['id'] ?? (node as Record<string, unknown>)['name'];
      if (typeof id === 'string') text += ` ("${id}")`;
    }
  }
  return text === '' ? 'the file' : text;
}

/**
 * Reads a rules file's JSON value.
 *
 * @throws AlertRulesError from `parseAlertRules` naming each field and the rule it breaks.
 * @internal
 */
export function parseAlertRules(input: unknown, source = 'the rules'): AlertRules {
  const result = rulesFile.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const message =
      issue.code === 'unrecognized_keys'
        ? `has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
        : issue.code === 'invalid_type' && issue.input === undefined
          ? 'is required'
          : issue.message;
    return `${where(input, issue.path)} ${message}`;
  });
  throw new AlertRulesError(`${source} are not valid: ${lines.join('; ')}`);
}

/**
 * Reads and checks a rules file.
 *
 * @throws AlertRulesError from `loadAlertRules` when the file cannot be read, is not JSON, or breaks a rule.
 * @internal
 */
export function loadAlertRules(file: string): AlertRules {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AlertRulesError(`cannot read the rules file ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AlertRulesError(`the rules file ${file} is not JSON: ${(error as Error).message}`);
  }
  return parseAlertRules(value, `the rules of ${file}`);
}
