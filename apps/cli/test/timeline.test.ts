import { TOOL_OUTCOMES, type ToolOutcome } from '@runledger/core';
import { InMemoryRunStore, RunTimelineEntry, stepOutcome } from '@runledger/trace';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { timelineSlice } from '../src/app/timelineSlice.js';
import { Translator } from '../src/i18n/Translator.js';
import { writeUnknownNote } from '../src/viewModels/writeUnknownNote.js';
import { TIMELINE_PAGE_SIZE } from '../src/views/runView.js';
import { send, serve, textOf } from './httpHelpers.js';
import { seedRun } from './seedRun.js';

const servers: RunsServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

function outcomeCells(body: string): string[] {
  return [...body.matchAll(/<td class="outcome">([\s\S]*?)<\/td>/g)].map((m) => textOf(m[1]!));
}

describe('run timeline page', () => {
  it('renders the Outcome column from runs.detail.outcome.<outcome> in English and German', async () => {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, {
      configuration: 'x',
      createdAt: T0,
      calls: TOOL_OUTCOMES.map((outcome) => ({ server: 'docs', tool: 'search', outcome })),
      finish: 'cancelled',
    });
    const server = await serve(store);
    servers.push(server);
    const english = await send(server, `/runs/${run.id}`);
    expect(english.status).toBe(200);
    expect(outcomeCells(english.body).filter((cell) => cell !== '—')).toEqual(['✓ ok', '✕ failed', '⊘ cancelled']);
    const german = await send(server, `/runs/${run.id}?lang=de`);
    expect(outcomeCells(german.body).filter((cell) => cell !== '—')).toEqual(['✓ ok', '✕ fehlgeschlagen', '⊘ abgebrochen']);
    // the one string: the stored outcome is the data attribute and the key
    for (const outcome of TOOL_OUTCOMES) {
      expect(english.body).toContain(`data-outcome="${outcome}"`);
      expect(stepOutcome(JSON.stringify({ toolIsError: outcome !== 'ok', toolOutcome: outcome }))).toBe(outcome);
    }
    expect([RunTimelineEntry.OUTCOME_OK, RunTimelineEntry.OUTCOME_FAILED, RunTimelineEntry.OUTCOME_CANCELLED]).toEqual([...TOOL_OUTCOMES]);
    const text = textOf(english.body);
    expect(text).toContain('Start End Source Kind Round Duration Outcome Details');
    expect(text).toContain('Metadata first: prompts and answers are never shown here.');
    expect(text).toContain('09:00:00.000 09:00:00.000 run lifecycle — — — Run started');
    // a step is stamped at its end: it began its duration earlier
    expect(text).toContain('09:00:00.005 09:00:00.010 docs tool call 1 5 ms ✓ ok tool: mcp_docs_search');
    expect(text).toContain('Run cancelled');
  });

  it('escapes a tool name with <script> in it', async () => {
    const store = InMemoryRunStore.create();
    const run = await store.createRun({ configuration: 'x', createdAt: T0 });
    await store.appendStep(run.id, {
      kind: 'tool',
      round: 1,
      durationMs: 1,
      createdAt: T0 + 1,
      payload: { kind: 'tool', toolName: 'mcp_docs_<script>alert(1)</script>', toolIsError: false, toolOutcome: 'ok' },
      toolServer: '<img src=x onerror=alert(2)>',
      toolOutcome: 'ok',
    });
    const server = await serve(store);
    servers.push(server);
    const reply = await send(server, `/runs/${run.id}`);
    expect(reply.body).not.toMatch(/<script>|<img/);
    expect(reply.body).toContain('mcp_docs_&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(reply.body).toContain('&lt;img src=x onerror=alert(2)&gt;');
  });

  it('renders a damaged step as unreadable and the rest of the run regardless', async () => {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, { configuration: 'x', createdAt: T0, calls: [{ server: 'docs', tool: 's', outcome: 'ok' }] });
    const steps = await store.readSteps(run.id);
    const damaged = [{ ...steps[0]!, payload: '{not json' }];
    const page = timelineSlice(run, damaged, 0);
    expect(page.entries.find((entry) => entry.sequence === 0)?.unreadable).toBe(true);
    expect(page.entries.filter((entry) => entry.isLifecycle).map((entry) => entry.event)).toEqual(['started', 'completed']);
  });

  it('pages a long run by 200 steps with lifecycle rows on the pages their time falls in', async () => {
    const store = InMemoryRunStore.create();
    const calls = Array.from({ length: 450 }, (_, i) => ({
      server: 'docs',
      tool: 's',
      outcome: (i % 9 === 0 ? 'failed' : 'ok') as ToolOutcome,
    }));
    const running = await seedRun(store, { configuration: 'long', createdAt: T0, calls, finish: null });
    await store.requestCancel(running.id, T0 + 10 * 250 + 5); // between steps 249 and 250
    const run = await store.finishRun(running.id, { status: 'cancelled', finishedAt: T0 + 10 * 451 });
    const server = await serve(store);
    servers.push(server);
    const rows = (body: string) => [...body.matchAll(/<tr id="step-(\d+)"/g)].map((m) => Number(m[1]));
    const lifecycle = (body: string) => [...body.matchAll(/data-lifecycle="([a-z_]+)"/g)].map((m) => m[1]);

    const first = await send(server, `/runs/${run.id}`);
    expect(rows(first.body)).toEqual(Array.from({ length: TIMELINE_PAGE_SIZE }, (_, i) => i));
    expect(lifecycle(first.body)).toEqual(['started']);
    expect(textOf(first.body)).toContain('Steps 1–200 of 450');
    expect(first.body).toContain(`href="/runs/${run.id}?from=200"`);

    const second = await send(server, `/runs/${run.id}?from=200`);
    expect(rows(second.body)).toEqual(Array.from({ length: 200 }, (_, i) => 200 + i));
    expect(lifecycle(second.body)).toEqual(['cancel_requested']);
    const cancelAt = second.body.indexOf('data-lifecycle="cancel_requested"');
    expect(second.body.indexOf('id="step-249"')).toBeLessThan(cancelAt);
    expect(second.body.indexOf('id="step-250"')).toBeGreaterThan(cancelAt);
    expect(second.body).toContain(`href="/runs/${run.id}"`);

    const last = await send(server, `/runs/${run.id}?from=400&lang=de`);
    expect(rows(last.body)).toEqual(Array.from({ length: 50 }, (_, i) => 400 + i));
    expect(lifecycle(last.body)).toEqual(['cancelled']);
    expect(textOf(last.body)).toContain('Schritte 401–450 von 450');
    expect(last.body).not.toContain('rel="next"');

    const beyond = await send(server, `/runs/${run.id}?from=99999`);
    expect(rows(beyond.body)).toEqual([449]);
    const garbage = await send(server, `/runs/${run.id}?from=-5`);
    expect(rows(garbage.body)[0]).toBe(0);
  });
});

describe('the may-have-executed note', () => {
  const t = new Translator('en');
  const entry = (outcome: RunTimelineEntry['outcome'], details: RunTimelineEntry['details'], mayHaveExecuted: boolean) =>
    RunTimelineEntry.of({
      time: T0,
      sequence: 3,
      event: null,
      kind: 'tool',
      source: 'slow',
      round: 1,
      durationMs: 5,
      outcome,
      details,
      unreadable: false,
      unreadableReason: null,
      mayHaveExecuted,
    });

  it('is shown on a call the timeline marks as possibly executed, naming the record when known', () => {
    expect(writeUnknownNote(t, entry('cancelled', { toolName: 'mcp_slow_export', writes: true }, true))).toBe(
      'Cancelled write call: whether the server changed anything before the call was torn down is unknown. Check it on the server.',
    );
    expect(writeUnknownNote(t, entry('cancelled', { writes: true, writeResource: 'report', writeId: 'q3' }, true))).toContain(
      'changed report q3 before',
    );
    expect(writeUnknownNote(t, entry('failed', { writes: true, failureCause: 'mcp_timeout' }, true))).toBe(
      'Timed-out write call: the server may have run it; whether it changed anything is unknown. Check it on the server.',
    );
    expect(writeUnknownNote(new Translator('de'), entry('cancelled', { writes: true }, true))).toContain('Abgebrochener Schreibaufruf');
    expect(writeUnknownNote(new Translator('de'), entry('failed', { writes: true, failureCause: 'mcp_timeout' }, true))).toContain(
      'Schreibaufruf mit Zeitüberschreitung',
    );
    // Failed unanswered otherwise: the connection broke, an HTTP error status, an unreadable answer.
    expect(
      writeUnknownNote(t, entry('failed', { writes: true, failureCause: 'mcp_transport_failure', writeResource: 'ticket' }, true)),
    ).toBe(
      'Write call without an answer: its request may have reached the server, which may have run it; whether it changed ticket is unknown. Check it on the server.',
    );
    expect(writeUnknownNote(new Translator('de'), entry('failed', { writes: true, failureCause: 'mcp_http_status' }, true))).toContain(
      'Schreibaufruf ohne Antwort',
    );
  });

  it('is not shown on a call the timeline does not mark (the rule is trace’s mayHaveExecuted)', () => {
    expect(writeUnknownNote(t, entry('cancelled', { toolName: 'mcp_docs_search' }, false))).toBeNull();
    expect(writeUnknownNote(t, entry('ok', { writes: true, writeResource: 'report' }, false))).toBeNull();
    expect(writeUnknownNote(t, entry('failed', { writes: true, failureCause: 'not_approved' }, false))).toBeNull();
  });
});
