import { isPrivacyLevel, PrivacyLevel } from './PrivacyLevel.js';
import { payloadOf, type RunStep, type RunStepPayload } from '../step/RunStep.js';
import { RUN_STEP_CONTENT } from '../step/RunStepSchema.js';

/**
 * Options of {@link applyPrivacy}.
 *
 * @public
 */
export interface PrivacyOptions {
  /** At `redacted`, the most characters (UTF-16 code units) a string keeps; default 1000. */
  readonly maxStringLength?: number;
}

/** Keys that survive every level. */
const IDENTITY = new Set([
  'kind',
  'round',
  'durationMs',
  'toolName',
  'toolServer',
  'toolIsError',
  'toolOutcome',
  'toolFailureCause',
  'toolFailureFacts',
  'toolWrites',
  'toolCallId',
  'toolSends',
  'toolApproval',
  'promptTokens',
  'completionTokens',
]);

/**
 * Content keys and, at `metadata`, what replaces each: the sizes and names the step schema's
 * content flag names (a size of a value of the wrong type is 0).
 */
const CONTENT: ReadonlyMap<string, (value: unknown, out: Record<string, unknown>) => void> = new Map(
  [...RUN_STEP_CONTENT].map(([key, flag]) => {
    // read once here: a step at `metadata` (the default, on every recorded call) allocates no list per key
    const sizes = Object.entries(flag.sizes);
    const names = Object.entries(flag.names ?? {});
    return [
      key,
      (value: unknown, out: Record<string, unknown>): void => {
        for (const [size, measure] of sizes) out[size] = measure(value) ?? 0;
        for (const [name, read] of names) out[name] = read(value);
      },
    ];
  }),
);

/**
 * A step's payload at a privacy level: `applyPrivacy(step.toPayload(), level)`. At `metadata` (the
 * default, on every recorded step) made in one pass, the content's sizes measured on the step's own
 * values, so no copy of content is made only to be replaced.
 *
 * @internal
 */
export function stepPayloadAt(step: RunStep, level: PrivacyLevel): Record<string, unknown> {
  return level === PrivacyLevel.METADATA ? payloadOf(step, CONTENT) : applyPrivacy(step.toPayload(), level);
}

/** Keys never masked at `redacted`: identities and closed vocabularies. */
const UNMASKED = new Set([...IDENTITY, 'model', 'provider', 'finishReason', 'toolWriteTarget']);

const SECRET_KEY =
  /^(password|passwd|pwd|secret|client_?secret|token|access_?token|refresh_?token|api_?key|apikey|x-api-key|authorization|auth|cookie|set-cookie|credentials?|private_?key)$/i;

/** Marks the place of the JWT pass among the patterns (it runs fourth, as the JWT pattern did). */
const JWT = 'jwt' as const;

/**
 * Secret shapes, each replaced in turn over the whole text.
 *
 * @remarks
 * Linear time on any input (docs/architecture.md, "linear time on untrusted text"). V8's regex engine tries
 * a pattern at every position and backtracks, so a pattern is linear when the work it does from
 * one start position is bounded by a constant, or when the stretches of text that different
 * failing starts scan are disjoint (each character is then read a constant number of times).
 * Per pattern:
 * - private key: starts only at a `-----BEGIN ` header; the header's `[A-Z ]*` run ends at the
 *   next `-` so the runs of two headers never overlap; after a header the match always succeeds
 *   (it ends at the first `-----END … PRIVATE KEY-----` or, for a key that was cut, at the end
 *   of the text), so the lazy body is read once and consumed.
 * - `Bearer|Basic|Token` credentials and `password=` style pairs: a start is a keyword; the
 *   whitespace runs it scans begin right after its own keyword or `:`/`=`, so they are disjoint
 *   between starts; the token class `{8,}` either reaches 8 characters and succeeds (consuming
 *   its run) or fails within 8; the trailing `[^…]+` is last and never backtracks.
 * - JWTs are found by {@link maskJwts}, which reads each run of token characters a bounded number
 *   of times (the pattern `\beyJ[…]{5,}\.[…]{5,}\.[…]{5,}` read the whole run from every
 *   `eyJ` after a `-`: quadratic on `eyJ-eyJ-…`).
 * - prefixed keys (`sk-`, `ghp_`, `github_pat_`, `xoxb-`, `AKIA`, `AIza`): one character class
 *   after a fixed prefix: a run of at least the minimum length succeeds and is consumed, a
 *   shorter one fails within that minimum (or within the fixed length).
 * - long mixed-case base64 tokens: the lookbehind lets a match start only at the first
 *   character of a run of token characters; the three lookaheads and the body each read that
 *   run once.
 * E-mail addresses are not a regex: {@link maskEmails} scans for them (see there).
 */
const SECRET_PATTERNS: readonly ([RegExp, string] | typeof JWT)[] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[secret]'],
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [secret]'],
  [
    /\b(password|passwd|pwd|secret|client_secret|token|access_token|refresh_token|api[_-]?key)(\s*[:=]\s*)(["']?)[^\s"',;&]+/gi,
    '$1$2$3[secret]',
  ],
  JWT,
  [/\b(?:sk|rk|pk)-[A-Za-z0-9_-]{16,}/g, '[secret]'],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, '[secret]'],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, '[secret]'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, '[secret]'],
  [/\bAKIA[0-9A-Z]{16}\b/g, '[secret]'],
  [/\bAIza[0-9A-Za-z_-]{35}/g, '[secret]'],
  // long base64-like tokens mixing upper case, lower case and digits (hex hashes and UUIDs pass)
  [
    /(?<![A-Za-z0-9+/_-])(?=[A-Za-z0-9+/_-]*[A-Z])(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*[0-9])[A-Za-z0-9+/_-]{40,}={0,2}/g,
    '[secret]',
  ],
];

/**
 * Three dot-separated runs of base64url characters, the first starting a run; each match is only
 * a candidate for {@link maskJwts}.
 */
const JWT_SHAPE = /(?<![A-Za-z0-9_-])([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g;
/** In a first segment: `eyJ` at a word boundary (the segment's start or after a `-`). */
const JWT_HEAD = /(?:^|-)eyJ/;

/**
 * Replaces each JWT by `[secret]`: what `\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}`
 * matched, found in linear time.
 *
 * @remarks
 * That regex, tried from every `eyJ` after a `-` in one run, read the whole run from each
 * (quadratic on `eyJ-eyJ-…`), and every start in a run reaches the same `.`: so the regex's
 * leftmost match is the first `eyJ` at a word boundary of a run that is followed by two dotted
 * segments of at least five characters, when at least five characters follow that `eyJ`. The
 * shape pattern starts only at the first character of a run (lookbehind) and reads the run and
 * the two after it; when the first run holds no such `eyJ`, the search resumes at the second
 * run, which may start a JWT itself. So each run is read by at most three attempts.
 */
function maskJwts(text: string): string {
  if (!text.includes('eyJ')) return text;
  JWT_SHAPE.lastIndex = 0;
  let out = '';
  let copied = 0;
  let match: RegExpExecArray | null;
  while ((match = JWT_SHAPE.exec(text)) !== null) {
    const first = match[1]!;
    const head = JWT_HEAD.exec(first);
    const at = head === null ? -1 : head.index + (head[0].length - 3);
    if (at >= 0 && first.length - at - 3 >= 5) {
      out += `${text.slice(copied, match.index + at)}[secret]`;
      copied = JWT_SHAPE.lastIndex;
    } else {
      JWT_SHAPE.lastIndex = match.index + first.length + 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const DOT = 0x2e;

/** `[A-Za-z0-9._%+-]`: a character of an address's local part. */
function isLocalChar(code: number): boolean {
  return isLabelChar(code) || code === DOT || code === 0x5f || code === 0x25 || code === 0x2b;
}

/** `[A-Za-z0-9-]`: a character of a domain label. */
function isLabelChar(code: number): boolean {
  return isLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d;
}

function isLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/**
 * Replaces each e-mail address by `[email]`: what the pattern
 * `[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}` matched, found in linear
 * time.
 *
 * @remarks
 * That regex, tried at every position, read the whole run of local-part characters from each
 * position of the run: quadratic on a long run of letters, digits or dots (100 000 `a` took
 * 13 s). The matches are the same when the scan starts from each `@` instead: a local part is
 * the run of local-part characters that ends right before the `@` (the leftmost start of a run
 * is the regex's leftmost match; a run cannot contain `@`) and does not reach back into the
 * previous match. The domain is the dot-separated labels after the `@`; the regex's greedy
 * backtracking ends the address after the leading letters of the last label (not the first)
 * that starts with at least two letters. Cost: the backward scan from an `@` stops at the
 * previous `@` or the previous match, and the forward scan of the labels stops before the next
 * `@`, so every character is read at most a few times whatever the input.
 */
function maskEmails(text: string): string {
  let at = text.indexOf('@');
  if (at < 0) return text;
  let out = '';
  let copied = 0; // text before this index is already in `out`
  let floor = 0; // a local part may not start before this index (the previous match or `@`)
  while (at >= 0) {
    let start = at;
    while (start > floor && isLocalChar(text.charCodeAt(start - 1))) start--;
    let end = -1;
    if (start < at) {
      // labels: L0 (mandatory), then `.Lk` while a label follows the dot
      let i = at + 1;
      while (i < text.length && isLabelChar(text.charCodeAt(i))) i++;
      if (i > at + 1) {
        while (i + 1 < text.length && text.charCodeAt(i) === DOT && isLabelChar(text.charCodeAt(i + 1))) {
          const labelStart = i + 1;
          let j = labelStart;
          while (j < text.length && isLabelChar(text.charCodeAt(j))) j++;
          let letters = labelStart;
          while (letters < j && isLetter(text.charCodeAt(letters))) letters++;
          if (letters - labelStart >= 2) end = letters;
          i = j;
        }
      }
    }
    if (end > 0) {
      out += `${text.slice(copied, start)}[email]`;
      copied = end;
      floor = end;
      at = text.indexOf('@', end);
    } else {
      floor = at + 1;
      at = text.indexOf('@', at + 1);
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Applies a privacy level to a step payload (`RunStep.toPayload()`) and returns the payload that
 * may be stored.
 *
 * @remarks
 * `full` returns the payload unchanged. `metadata` replaces each content key (`content`,
 * `thinking`, `messages`, `requestedToolCalls`, `raw`, `toolArguments`, `toolResult`,
 * `toolArtifacts`) by counts and lengths in the same place: `contentLength`, `thinkingLength`,
 * `messageCount`, `requestedToolCallCount` and `requestedToolNames`, `rawLength` (of its JSON),
 * `toolArgumentCount`, `toolResultLength`, `toolArtifactCount`; lengths are in UTF-16 code
 * units. `none` keeps only `kind`, `round`, `durationMs`, `toolName`, `toolServer`,
 * `toolIsError`, `toolOutcome`, `toolFailureCause`, `toolFailureFacts` (why a call failed, as
 * metadata: JSON-RPC code, HTTP status, error class, the server's `isError`), `toolWrites`,
 * `toolCallId`, `toolSends`, `toolApproval` (who decided a call that needed approval, and why),
 * `promptTokens`, `completionTokens`. `redacted` keeps every key
 * but masks, in every string except identities, secret-looking text (`[secret]`: API keys and
 * tokens of well-known shapes, bearer credentials, `password=` style pairs, private keys, JWTs,
 * long mixed-case base64 tokens) and e-mail addresses (`[email]`), replaces whole the value of
 * an object key named like a secret (`password`, `token`, `apiKey`, `authorization`, …), and
 * caps each string at `maxStringLength` with a marker saying how much was cut.
 *
 * @throws TypeError from `applyPrivacy` when the level is unknown.
 * @public
 */
export function applyPrivacy(
  input: RunStepPayload | Readonly<Record<string, unknown>>,
  level: PrivacyLevel,
  options: PrivacyOptions = {},
): Record<string, unknown> {
  const payload = input as Readonly<Record<string, unknown>>;
  switch (level) {
    case PrivacyLevel.FULL:
      return { ...payload };
    case PrivacyLevel.METADATA: {
      const out: Record<string, unknown> = {};
      for (const key in payload) {
        const value = payload[key];
        const replace = CONTENT.get(key);
        if (replace === undefined) out[key] = value;
        else replace(value, out);
      }
      return out;
    }
    case PrivacyLevel.NONE: {
      const out: Record<string, unknown> = {};
      for (const key in payload) if (IDENTITY.has(key)) out[key] = payload[key];
      return out;
    }
    case PrivacyLevel.REDACTED: {
      const max = options.maxStringLength ?? 1000;
      if (!Number.isSafeInteger(max) || max < 1)
        throw new RangeError(`PrivacyOptions.maxStringLength must be a positive integer, got ${String(max)}`);
      const out: Record<string, unknown> = {};
      for (const key in payload) {
        out[key] = UNMASKED.has(key) ? payload[key] : redact(payload[key], max, 0);
      }
      return out;
    }
    default:
      throw new TypeError(
        `applyPrivacy level must be one of "none", "metadata", "redacted", "full", got ${isPrivacyLevel(level) ? level : JSON.stringify(level)}`,
      );
  }
}

/**
 * Masks secrets and e-mail addresses in one string and caps it; exported for tests and for
 * callers that redact their own text the same way.
 *
 * @public
 */
export function redactText(text: string, maxStringLength = 1000): string {
  let out = text;
  for (const step of SECRET_PATTERNS) out = step === JWT ? maskJwts(out) : out.replace(step[0], step[1]);
  out = maskEmails(out);
  if (out.length > maxStringLength) {
    let cut = maxStringLength;
    const code = out.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    out = `${out.slice(0, cut)}… [${out.length - cut} more characters cut]`;
  }
  return out;
}

function redact(value: unknown, max: number, depth: number): unknown {
  if (typeof value === 'string') return redactText(value, max);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 64) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redact(item, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      SECRET_KEY.test(key) && item !== null && item !== undefined && typeof item !== 'boolean' ? '[secret]' : redact(item, max, depth + 1);
  }
  return out;
}
