// Issue 13 polish: German everywhere. Every page, with every step kind, lifecycle event, call
// state, termination reason runledger writes and note, rendered in German, must not contain any
// text of the English catalog that German says differently.
import { ToolResult } from '@runledger/core';
import { InMemoryRunStore, RUN_STEP_KINDS, RunLifecycleEvent, type RunStore, startRun, type StoredRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { messagesDe as de } from '../src/i18n/messagesDe.js';
import { entryTexts } from '../src/i18n/PluralForms.js';
import { en, type MessageKey } from '../src/i18n/messagesEn.js';
import { send, serve, textOf } from './httpHelpers.js';

// Data in German or without words, so that a hit can only be catalog text.
const CONFIG = 'konfig-eins';
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

let store: InMemoryRunStore;
let app: RunsServer;
const runs: StoredRun[] = [];

/** A run whose steps are of every kind, one written tool call that was cancelled, and a call that ended. */
async function everyKind(s: RunStore): Promise<string> {
  const run = await startRun(s, { configuration: CONFIG, actor: 'prüferin', heartbeatMs: 0, spoolDir: false, privacy: 'metadata' });
  const trace = run.trace;
  await trace.recordRequest({ content: 'Bitte exportieren.' });
  await trace.recordLlmCall({
    round: 1,
    model: 'modell-1',
    content: 'Gut.',
    finishReason: 'halt',
    promptTokens: 10,
    completionTokens: 3,
    costUsd: 0.01,
    thinking: 'hm',
    requestedToolCalls: [{ name: 'mcp_dok_suche', arguments: {} }],
    raw: { a: 1 },
  });
  await trace.recordContextBudget({ round: 1, tokenBudget: 1000, tokensUsed: 400 });
  await trace.recordDroppedSources({ round: 1, sources: ['quelle-1'] });
  await trace.recordAssembledMessages({ round: 1, messages: [{ role: 'user', content: 'x' }] });
  const start = await trace.recordToolStart({ toolName: 'mcp_dok_suche', toolArguments: { q: 'x' }, round: 1 });
  await trace.recordToolResult({
    toolName: 'mcp_dok_suche',
    result: ToolResult.text('ja'),
    toolCallId: start.toolCallId!,
    round: 1,
    durationMs: 5,
  });
  await trace.recordToolResult({ toolName: 'mcp_dok_liste', result: ToolResult.error('nein'), round: 1, durationMs: 6 });
  await trace.recordToolResult({
    toolName: 'mcp_dok_schreiben',
    result: ToolResult.cancelled('halt'),
    round: 1,
    durationMs: 7,
    writes: true,
  });
  await run.complete();
  return run.id;
}

beforeAll(async () => {
  store = InMemoryRunStore.create();
  const peer = store.openPeer();
  const ids: string[] = [];
  ids.push(await everyKind(store));

  // cancelled from the app (through the store): startRun notices, and its reason says who and how
  const fromApp = await startRun(store, { configuration: CONFIG, heartbeatMs: 0, spoolDir: false });
  await fromApp.trace.recordToolStart({ toolName: 'mcp_lang_export', round: 1, writes: true });
  await peer.requestCancel(fromApp.id);
  for (let i = 0; i < 200 && !fromApp.cancelRequested; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  await fromApp.trace.recordToolResult({
    toolName: 'mcp_lang_export',
    result: ToolResult.cancelled('abgebrochen'),
    round: 1,
    durationMs: 9,
    writes: true,
  });
  await fromApp.complete();
  ids.push(fromApp.id);

  // cancelled in the process itself
  const local = await startRun(store, { configuration: CONFIG, heartbeatMs: 0, spoolDir: false });
  await local.cancel();
  await local.complete();
  ids.push(local.id);

  // a run that died with a call on the wire (interrupted call), and its agent's own error
  const died = await startRun(store, { configuration: CONFIG, heartbeatMs: 0, spoolDir: false });
  await died.trace.recordToolStart({ toolName: 'mcp_dok_suche', round: 2 });
  await died.fail(new Error('Modellverbindung verloren'));
  ids.push(died.id);

  // the store decides: a cancel that crossed the finish, with and without a reason
  for (const [status, reason] of [
    ['completed', null],
    ['failed', 'Werkzeug kaputt'],
    ['completed', 'cancel requested through the store'],
  ] as const) {
    const crossed = await store.createRun({ configuration: CONFIG, actor: null, createdAt: T0 });
    await store.requestCancel(crossed.id, T0 + 5);
    await store.finishRun(crossed.id, { status, finishedAt: T0 + 10, terminationReason: reason, unstoredSteps: 2 });
    ids.push(crossed.id);
  }

  // recovery: no sign of life, with and without a cancel request
  const stale = await store.createRun({ configuration: CONFIG, actor: null, createdAt: T0 });
  const staleCancel = await store.createRun({ configuration: CONFIG, actor: null, createdAt: T0 });
  await store.requestCancel(staleCancel.id, T0 + 1);
  await store.recoverInterrupted(T0 + 60_000);
  ids.push(stale.id, staleCancel.id);

  // a late cancel
  const late = await store.createRun({ configuration: CONFIG, actor: null, createdAt: T0 });
  await store.finishRun(late.id, { status: 'completed', finishedAt: T0 + 10 });
  await store.requestCancel(late.id, T0 + 20);
  ids.push(late.id);

  // running: one with a call on the wire, one with a cancel pending and nothing on the wire
  const running = await startRun(store, { configuration: CONFIG, heartbeatMs: 0, spoolDir: false });
  await running.trace.recordToolStart({ toolName: 'mcp_lang_export', round: 1 });
  ids.push(running.id);
  const pending = await store.createRun({ configuration: CONFIG, actor: null, createdAt: T0 });
  await store.requestCancel(pending.id, T0 + 1);
  ids.push(pending.id);

  for (const id of ids) runs.push((await store.getRun(id))!);
  app = await serve(store);
}, 30_000);

afterAll(async () => {
  await app?.close();
});

/** The visible text of a page: style blocks and tags dropped. */
function visible(body: string): string {
  return textOf(body.replace(/<style[\s\S]*?<\/style>/g, ' ').replace(/<title>[\s\S]*?<\/title>/g, ' '));
}

/** English catalog texts German says differently, cut at their parameters, that a page must not contain. */
function englishFragments(): { key: MessageKey; fragment: string }[] {
  const out: { key: MessageKey; fragment: string }[] = [];
  for (const key of Object.keys(en) as MessageKey[]) {
    const german = entryTexts(de[key]);
    entryTexts(en[key]).forEach((english, form) => {
      if (english === german[form]) return;
      for (const part of english.split(/\{\w+\}/)) {
        const fragment = part.trim().replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
        if (fragment.length >= 2 && /\p{L}/u.test(fragment)) out.push({ key, fragment });
      }
    });
  }
  return out;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function englishIn(text: string): string[] {
  return englishFragments()
    .filter(({ fragment }) => new RegExp(`(?<![\\p{L}\\p{N}_])${escape(fragment)}(?![\\p{L}\\p{N}_])`, 'u').test(text))
    .map(({ key, fragment }) => `${key}: "${fragment}"`);
}

describe('German everywhere', () => {
  it('the seeded runs cover every step kind, lifecycle event, call state and reason runledger writes', () => {
    const reasons = runs.map((run) => run.terminationReason).filter((reason) => reason !== null);
    expect(reasons).toEqual(
      expect.arrayContaining([
        'cancelled by an operator from outside the run (the app’s Cancel button, or another process through the store)',
        'cancelled by the operator',
        'cancel requested while the run was running (the run reported "completed")',
        'cancel requested while the run was running (the run reported "failed": Werkzeug kaputt)',
        'cancel requested while the run was running (the run reported "completed": cancel requested through the store)',
        expect.stringMatching(/^no sign of life since /),
        expect.stringMatching(/^cancel requested; no sign of life since /),
      ]),
    );
    expect(new Set(runs.map((run) => run.status))).toEqual(new Set(['completed', 'failed', 'cancelled', 'interrupted', 'running']));
    expect(Object.values(RunLifecycleEvent)).toEqual(
      expect.arrayContaining(['started', 'cancel_requested', 'completed', 'failed', 'cancelled', 'interrupted']),
    );
  });

  it('the check finds English: the English pages do contain English catalog text', async () => {
    const page = visible((await send(app, `/runs/${runs[0]!.id}?lang=en`)).body);
    expect(englishIn(page).length).toBeGreaterThan(10);
  });

  it('every page in German has no English catalog text in it', async () => {
    const paths = [
      '/',
      '/?status=cancelled',
      '/?has=failed',
      '/servers',
      '/servers?window=all',
      '/servers?window=7d&sort=calls',
      ...runs.map((run) => `/runs/${run.id}`),
      '/runs/00000000-0000-4000-8000-000000000000',
      '/runs/%ZZ',
      '/nirgends',
    ];
    const seen = { kinds: new Set<string>(), lifecycle: new Set<string>(), states: new Set<string>() };
    const problems: string[] = [];
    for (const path of paths) {
      const reply = await send(app, `${path}${path.includes('?') ? '&' : '?'}lang=de`);
      expect(reply.body, path).toContain('<html lang="de"');
      for (const m of reply.body.matchAll(/data-lifecycle="([a-z_]+)"/g)) seen.lifecycle.add(m[1]!);
      for (const m of reply.body.matchAll(/data-call-state="([a-z_]+)"/g)) seen.states.add(m[1]!);
      for (const m of reply.body.matchAll(/<td class="kind">([^<]*)<\/td>/g)) seen.kinds.add(m[1]!);
      for (const hit of englishIn(visible(reply.body))) problems.push(`${path}: ${hit}`);
    }
    expect(problems).toEqual([]);
    expect([...seen.lifecycle].sort()).toEqual([...Object.values(RunLifecycleEvent)].sort());
    expect([...seen.states].sort()).toEqual(['interrupted', 'on_the_wire']);
    // every kind shown in its German name, never the stored string
    for (const kind of RUN_STEP_KINDS) expect(seen.kinds, kind).toContain(de[`runs.detail.kind.${kind}`]);
    for (const kind of RUN_STEP_KINDS) expect(seen.kinds, kind).not.toContain(kind);
  });
});
