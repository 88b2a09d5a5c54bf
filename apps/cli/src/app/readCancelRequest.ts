// Who asks for a cancel through the app, and why: the access token's name (or the user an
// authenticating proxy names in the header the operator told the app to trust) and the reason
// typed in the Cancel form.
import type { IncomingMessage } from 'node:http';
import { type CancelRequestInput, checkCancelRequest, RunStoreError } from '@runledger/trace';

/** The most bytes of a Cancel form the app reads (a reason is at most 500 characters). */
const MAX_FORM_BYTES = 8 * 1024;

/**
 * How the app names who asked: the user a proxy names in `trustUserHeader` when the operator said to
 * trust that header (never otherwise), else `tokenName`: the token's name (`token` when the app has
 * a token and no name was given), or on a loopback app without a token the name the operator gave
 * it (`--token-name`), else no one.
 *
 * @internal
 */
export interface CancelRequesterOptions {
  readonly tokenName: string | null;
  readonly trustUserHeader: string | null;
}

/** The Cancel form's body: a urlencoded form of at most 8 KiB, else null (too large, or not a form). */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return null;
    chunks.push(chunk);
  }
  if (size === 0) return new URLSearchParams();
  if (type !== 'application/x-www-form-urlencoded') return null;
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The cancel request of a POST to the app: from `app`, by the trusted header's user or the
 * token's name, with the form's reason (empty reads as none). A string with the rule it breaks
 * when the form or a value is refused.
 *
 * @internal
 */
export async function readCancelRequest(
  req: IncomingMessage,
  options: CancelRequesterOptions,
): Promise<{ readonly request: CancelRequestInput } | { readonly problem: string }> {
  const form = await readForm(req);
  if (form === null) return { problem: 'the Cancel form must be a urlencoded form of at most 8 KiB' };
  const typed = (form.get('reason') ?? '').trim();
  const header = options.trustUserHeader === null ? undefined : req.headers[options.trustUserHeader.toLowerCase()];
  const user = typeof header === 'string' && header.trim() !== '' ? header.trim() : null;
  const by = user ?? options.tokenName;
  const request = { from: 'app', by, reason: typed === '' ? null : typed } as const;
  try {
    checkCancelRequest(request);
  } catch (error) {
    if (RunStoreError.is(error)) return { problem: error.message };
    throw error;
  }
  return { request };
}
