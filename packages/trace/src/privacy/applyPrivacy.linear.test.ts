import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { applyPrivacy, redactText } from './applyPrivacy.js';

/** The e-mail regex the scanner replaced: the reference for what counts as an address. */
const EMAIL_REGEX = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

/** Texts of the shapes that made the old patterns quadratic, and a few more. */
const ADVERSARIAL: Readonly<Record<string, (n: number) => string>> = {
  'a run': (n) => 'a'.repeat(n),
  'dot run': (n) => '.'.repeat(n),
  'at run': (n) => '@'.repeat(n),
  'digit run': (n) => '7'.repeat(n),
  'local@domain without a TLD': (n) => `${'a'.repeat(n / 2)}@${'b'.repeat(n / 2)}`,
  'a@ repeated': (n) => 'a@'.repeat(n / 2),
  'a. repeated': (n) => 'a.'.repeat(n / 2),
  'x@a.a.a… with one-letter labels': (n) => `x@${'a.'.repeat(n / 2)}`,
  'eyJ- repeated': (n) => 'eyJ-'.repeat(n / 4),
  'private key headers without an end': (n) => '-----BEGIN RSA PRIVATE KEY-----x'.repeat(n / 32),
  'Bearer and spaces': (n) => `Bearer${' '.repeat(n)}!`,
  'token= and spaces': (n) => `token${' '.repeat(n / 2)}=${' '.repeat(n / 2)},`,
  'short sk- keys': (n) => 'sk-abc '.repeat(n / 7),
  'base64 run without digits': (n) => 'aB'.repeat(n / 2),
  mixed: (n) => 'a.b@c-d_e+f%g7.'.repeat(n / 15),
};

// The caps below separate linear from quadratic with a wide margin on a busy machine, not measure
// speed (that is bench/redaction.bench.mjs): the old patterns took 35–62 s on 200 000 characters
// and about 11 s on 100 000; the scanners take a few ms.
function timed(text: string): number {
  const start = performance.now();
  redactText(text);
  return performance.now() - start;
}

describe('redactText runs in linear time', () => {
  it.each(Object.keys(ADVERSARIAL))('200 000 characters of %s redact in well under a second', (name) => {
    const text = ADVERSARIAL[name]!(200_000);
    timed(text.slice(0, 1000)); // warm up the compiled patterns
    expect(timed(text)).toBeLessThan(2_500);
  });

  it('recordRequest-sized content through applyPrivacy: 100 000 `a` no longer blocks the event loop', () => {
    const start = performance.now();
    const out = applyPrivacy({ kind: 'request', round: 0, durationMs: 0, content: 'a'.repeat(100_000) }, 'redacted');
    expect(performance.now() - start).toBeLessThan(2_000);
    expect(out['content']).toBe(`${'a'.repeat(1000)}… [99000 more characters cut]`);
  });

  it('generated adversarial texts stay within a time cap (time per character does not grow)', () => {
    const piece = fc.constantFrom(
      'a',
      '.',
      '@',
      '7',
      '-',
      '_',
      '+',
      '%',
      ' ',
      'eyJ',
      'sk-',
      'Bearer ',
      'token=',
      '-----BEGIN RSA PRIVATE KEY-----',
      'A',
      'Z9',
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), fc.integer({ min: 2_000, max: 20_000 }), (pieces, repeat) => {
        const text = pieces
          .join('')
          .repeat(Math.ceil((repeat * 5) / pieces.join('').length))
          .slice(0, 100_000);
        // 100 000 characters: the quadratic patterns took about 10 s on such texts; linear takes a few ms
        expect(timed(text)).toBeLessThan(1_000);
      }),
      { numRuns: 60 },
    );
  });
});

/** The JWT regex the scanner replaced. */
const JWT_REGEX = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g;

describe('the JWT scanner finds what the JWT regex found', () => {
  it('on generated texts, the same tokens as the regex', () => {
    // no digits: nothing here may look like a long base64 token, so only the JWT pass can mask
    const part = fc.constantFrom('eyJ', 'eyJ-', 'ab', 'c', '-', '_', '.', '..', ' ', 'xZ', 'abcde', 'é');
    fc.assert(
      fc.property(fc.array(part, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(redactText(text, 10_000)).toBe(text.replace(JWT_REGEX, '[secret]'));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the e-mail scanner finds what the e-mail regex found', () => {
  const alphabet = fc.constantFrom('a', 'Z', 'b', '7', '.', '-', '_', '%', '+', '@', ' ', ',', 'co', 'de', 'x.io', '\n', 'é');
  it('on generated texts, the same addresses as the regex', () => {
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(redactText(text, 10_000)).toBe(text.replace(EMAIL_REGEX, '[email]'));
      }),
      { numRuns: 3000 },
    );
  });

  it('on examples', () => {
    const cases: [string, string][] = [
      ['mail jane.doe@example.com now', 'mail [email] now'],
      ['a@b.c', 'a@b.c'],
      ['x@ab.cd9@foo.com', '[email][email]'],
      ['x@example.com.1@foo.org', '[email][email]'],
      ['first.last+tag@mail.sub.example.co.uk>', '[email]>'],
      ['x@a.bc.d', '[email].d'],
      ['x@a..com', 'x@a..com'],
      ['@@a@@b.cc', '@@a@@b.cc'],
      ['a@@b.cc', 'a@@b.cc'],
      ['ü@example.com', 'ü@example.com'],
      ['a@b.cc and c@d.ee', '[email] and [email]'],
    ];
    for (const [input, expected] of cases) {
      expect(input.replace(EMAIL_REGEX, '[email]')).toBe(expected);
      expect(redactText(input)).toBe(expected);
    }
  });
});

describe('secret shapes after the linear rewrite', () => {
  it('a private key that was cut (no END line) is masked to the end of the text', () => {
    expect(redactText('key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA')).toBe('key: [secret]');
    expect(redactText('a -----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY----- b')).toBe('a [secret] b');
  });

  it('two keys, one inside the other, leave nothing of either', () => {
    const text = '-----BEGIN RSA PRIVATE KEY-----\nAAA\n-----BEGIN RSA PRIVATE KEY-----\nBBB\n-----END RSA PRIVATE KEY-----\nafter';
    expect(redactText(text)).toBe('[secret]\nafter');
  });

  it('a JWT is masked wherever its word starts, after a dash too', () => {
    expect(redactText('id-eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk end')).toBe('id-[secret] end');
    expect(redactText('eyJ-eyJ-eyJ-eyJhbGciOi.eyJzdWIiOiIx.abcdefgh')).toBe('[secret]');
    expect(redactText('eyJhbGciOiJ-eyJab.eyJzdWIiOiIx.abcdefgh!')).toBe('[secret]!');
    expect(redactText('abc.eyJhbGciOi.eyJzdWIiOiIx.abcdefgh')).toBe('abc.[secret]');
    expect(redactText('eyJab.cdefg.hijkl')).toBe('eyJab.cdefg.hijkl');
  });
});
