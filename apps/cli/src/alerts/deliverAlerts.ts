// Delivers the notifications the evaluator owes, in order, per webhook: each one POSTed with
// retries and a growing pause; what still fails stays owed for the next pass.
import type { AlertWebhook } from './alertRules.js';
import { webhookBody } from '../alertState/alertNotification.js';
import type { PendingNotification } from '../alertState/AlertStateFile.js';

/** How deliveries are tried. @internal */
export interface DeliveryOptions {
  /** Tries per notification in one pass; default 3. */
  readonly attempts?: number;
  /** The pause before the second try in ms, doubled before each further one; default 500. */
  readonly backoffMs?: number;
  /** How long one POST may take in ms; default 10 000. */
  readonly timeoutMs?: number;
  /** Called after each notification is delivered (the caller saves the state then). */
  readonly onDelivered?: (notification: PendingNotification) => void;
}

/** What a pass of delivery did. @internal */
export interface DeliveryResult {
  readonly delivered: readonly PendingNotification[];
  /** Still owed, in order: the next pass tries them first. */
  readonly pending: readonly PendingNotification[];
  /** The last error per webhook that failed, in words. */
  readonly errors: readonly string[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** POSTs one notification once; resolves on a 2xx answer, rejects otherwise. */
async function post(webhook: AlertWebhook, notification: PendingNotification, timeoutMs: number): Promise<void> {
  const response = await fetch(webhook.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': notification.id, 'user-agent': 'runledger-alerts' },
    body: JSON.stringify(webhookBody(webhook, notification.transition)),
    signal: AbortSignal.timeout(timeoutMs),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
}

/**
 * Delivers owed notifications. A webhook that fails every try of one notification gets nothing
 * more in this pass (its order is kept); a notification for a webhook the rules no longer name is
 * dropped.
 *
 * @internal
 */
export async function deliverAlerts(
  outbox: readonly PendingNotification[],
  webhooks: readonly AlertWebhook[],
  options: DeliveryOptions = {},
): Promise<DeliveryResult> {
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const byName = new Map(webhooks.map((w) => [w.name, w]));
  const failed = new Set<string>();
  const delivered: PendingNotification[] = [];
  const pending: PendingNotification[] = [];
  const errors: string[] = [];
  for (const notification of outbox) {
    const webhook = byName.get(notification.webhook);
    if (webhook === undefined) continue;
    if (failed.has(webhook.name)) {
      pending.push(notification);
      continue;
    }
    let lastError: unknown = null;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(backoffMs * 2 ** (attempt - 1));
      try {
        await post(webhook, notification, timeoutMs);
        lastError = null;
        break;
      } catch (error) {
        lastError = error;
      }
    }
    if (lastError === null) {
      delivered.push(notification);
      options.onDelivered?.(notification);
    } else {
      failed.add(webhook.name);
      pending.push(notification);
      const cause = (lastError as Error & { cause?: { code?: string } }).cause?.code;
      errors.push(
        `webhook ${webhook.name}: ${(lastError as Error).message}${cause === undefined ? '' : ` (${cause})`} after ${attempts} tries; kept for the next pass`,
      );
    }
  }
  return { delivered, pending, errors };
}
