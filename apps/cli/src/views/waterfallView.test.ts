import { RunCallState, RunLifecycleEvent, RunTimelineEntry, type RunTimelineDetail, type RunTimelineOutcome } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import type { Locale } from '../i18n/Locale.js';
import { Translator } from '../i18n/Translator.js';
import { html } from '../html/Html.js';
import { renderWaterfallView } from './waterfallView.js';
import { ViewContext } from './ViewContext.js';

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

function context(locale: Locale): ViewContext {
  return new ViewContext({
    t: new Translator(locale, { timeZone: 'UTC' }),
    explicitLang: null,
    path: '/runs/x',
    query: new URLSearchParams(),
  });
}

function tool(
  sequence: number,
  end: number,
  durationMs: number,
  outcome: RunTimelineOutcome,
  details: Record<string, RunTimelineDetail> = {},
) {
  return new RunTimelineEntry(
    end,
    sequence,
    null,
    'tool',
    'docs',
    1,
    durationMs,
    outcome,
    { toolName: 'mcp_docs_search', ...details },
    false,
    null,
  );
}

/** The bars of a rendered waterfall: sequence, state, lane and accessible name. */
function bars(markup: string): { sequence: string; state: string; lane: string; label: string; href: string }[] {
  return [
    ...markup.matchAll(
      /<a href="([^"]*)" class="bar [^"]*" data-sequence="(\d*)" data-state="(\w+)" data-lane="(\d+)" aria-label="([^"]*)">/g,
    ),
  ].map((m) => ({ href: m[1]!, sequence: m[2]!, state: m[3]!, lane: m[4]!, label: m[5]! }));
}

describe('renderWaterfallView', () => {
  const entries = [
    new RunTimelineEntry(T0, null, RunLifecycleEvent.STARTED, 'run', 'run', null, null, '', {}, false, null),
    new RunTimelineEntry(T0 + 100, 0, null, 'llm', 'demo-model', 1, 100, '', { model: 'demo-model' }, false, null),
    tool(1, T0 + 600, 500, 'ok'),
    tool(2, T0 + 700, 550, 'cancelled', { toolName: 'mcp_slow_export' }),
    tool(3, T0 + 1_900, 1_234, 'failed'),
    new RunTimelineEntry(
      T0 + 900,
      4,
      null,
      'tool_start',
      'docs',
      2,
      null,
      '',
      { toolName: 'mcp_docs_fetch' },
      false,
      null,
      RunCallState.ON_THE_WIRE,
    ),
  ];

  it('draws each step as a link to its row, named by step, kind, tool on its server, outcome and duration; parallel calls on separate lanes', () => {
    const markup = renderWaterfallView(context('en'), entries, T0 + 2_000).value;
    expect(bars(markup)).toEqual([
      { href: '#step-0', sequence: '0', state: 'step', lane: '0', label: 'Step 1, LLM call, demo-model, 100 ms' },
      { href: '#step-1', sequence: '1', state: 'ok', lane: '0', label: 'Step 2, tool call, mcp_docs_search on docs, ok, 500 ms' },
      {
        href: '#step-2',
        sequence: '2',
        state: 'cancelled',
        lane: '1',
        label: 'Step 3, tool call, mcp_slow_export on docs, cancelled, 550 ms',
      },
      {
        href: '#step-3',
        sequence: '3',
        state: 'failed',
        lane: '0',
        label: 'Step 4, tool call, mcp_docs_search on docs, failed, 1.234 sec',
      },
      {
        href: '#step-4',
        sequence: '4',
        state: 'running',
        lane: '1',
        label: 'Step 5, tool call sent, mcp_docs_fetch on docs, on the wire, running for 1.1 sec',
      },
    ]);
    // a title (tooltip) with the same words on each bar; the cancelled one is never drawn as failed
    expect(markup).toContain('<title>Step 3, tool call, mcp_slow_export on docs, cancelled, 550 ms</title>');
    expect(markup).toMatch(/class="bar bar-cancelled" data-sequence="2"/);
    expect(markup).toContain('data-lanes="2"');
    expect(markup).toContain('<svg class="waterfall-chart"');
    expect(markup).not.toContain('<script');
    expect(markup).toContain('09:00:00.000 to 09:00:02.000');
    expect(markup).toContain('data-event="started"');
  });

  it('speaks German, with the one duration format', () => {
    const markup = renderWaterfallView(context('de'), entries, T0 + 2_000).value;
    expect(bars(markup).map((bar) => bar.label)).toEqual([
      'Schritt 1, LLM-Aufruf, demo-model, 100 ms',
      'Schritt 2, Tool-Aufruf, mcp_docs_search auf docs, ok, 500 ms',
      'Schritt 3, Tool-Aufruf, mcp_slow_export auf docs, abgebrochen, 550 ms',
      'Schritt 4, Tool-Aufruf, mcp_docs_search auf docs, fehlgeschlagen, 1,234 Sek.',
      'Schritt 5, Tool-Aufruf gesendet, mcp_docs_fetch auf docs, unterwegs, läuft seit 1,1 Sek.',
    ]);
    expect(markup).toContain('<h2 id="waterfall-h">Wasserfall</h2>');
  });

  it('escapes a tool name in the bar name and tooltip', () => {
    const markup = renderWaterfallView(context('en'), [tool(0, T0 + 10, 5, 'ok', { toolName: '"><script>alert(1)</script>' })], T0).value;
    expect(markup).not.toContain('<script>');
    expect(markup).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('is empty for a slice without steps', () => {
    expect(renderWaterfallView(context('en'), [entries[0]!], T0).value).toBe('');
  });

  it('labels a bar with its tool on its server inside it when it fits, beside it when not, per screen width', () => {
    const markup = renderWaterfallView(
      context('en'),
      [tool(0, T0 + 1_000, 1_000, 'ok'), tool(1, T0 + 2_000, 10, 'failed', { toolName: 'mcp_docs_fetch' })],
      T0,
    ).value;
    const labels = [...markup.matchAll(/<text class="bar-label ([^"]*)"[^>]*>([^<]*)<\/text>/g)].map((m) => [m[1], m[2]]);
    expect(labels).toEqual([
      // half the axis holds the long label on a wide screen, the tool alone on a phone
      ['label-inside label-wide', 'mcp_docs_search on docs'],
      ['label-inside label-narrow', 'mcp_docs_search'],
      // the short bar at the axis end takes its label on its left, in the room its lane has there
      ['label-left label-wide', 'mcp_docs_fetch on docs'],
      ['label-left label-narrow', 'mcp_docs_fetch'],
    ]);
    // the CSS shows one of the two: the wide one from 1000 px on
    expect(markup).toMatch(
      /<a href="#step-1"[^>]*><title>[^<]*<\/title><rect [^>]*><\/rect><\/a><text class="bar-label label-left label-wide" data-sequence="1" x="99.500%" dx="-4"[^>]*text-anchor="end"/,
    );
  });

  it('marks a call that may have executed on its bar: ⚠ with the words where they fit, an outline, and the legend', () => {
    const write = new RunTimelineEntry(
      T0 + 1_000,
      0,
      null,
      'tool',
      'exports',
      1,
      1_000,
      'cancelled',
      { toolName: 'mcp_export' },
      false,
      null,
      null,
      true,
    );
    const markup = renderWaterfallView(context('en'), [write, tool(1, T0 + 2_000, 900, 'ok')], T0).value;
    expect(markup).toContain('class="bar bar-cancelled bar-may-have-executed" data-sequence="0"');
    expect(markup).toMatch(
      /aria-label="Step 1, tool call, mcp_export on exports, cancelled, may have executed, 1 sec" data-may-have-executed="true"/,
    );
    expect(markup).toContain('>⚠ mcp_export on exports, may have executed</text>');
    expect(markup).toContain('<span class="swatch swatch-may-have-executed" aria-hidden="true">⚠</span>may have executed</li>');
    const plain = renderWaterfallView(context('de'), [tool(1, T0 + 2_000, 900, 'ok')], T0).value;
    expect(plain).not.toContain('swatch-may-have-executed');
  });

  it('draws the cancel request as a labelled line, its time said to assistive tech, in English and German', () => {
    const cancel = new RunTimelineEntry(
      T0 + 1_500,
      null,
      RunLifecycleEvent.CANCEL_REQUESTED,
      'run',
      'run',
      null,
      null,
      '',
      {},
      false,
      null,
    );
    const steps = [tool(0, T0 + 1_000, 1_000, 'ok'), cancel, tool(1, T0 + 2_000, 400, 'cancelled')];
    const en = renderWaterfallView(context('en'), steps, T0).value;
    expect(en).toMatch(
      /<g class="marker marker-cancel_requested marker-labelled" data-event="cancel_requested" role="img" aria-label="Cancel requested at 09:00:01.500">.*<line x1="75.000%"[^>]*><\/line><text [^>]*>⊘ Cancel requested<\/text><\/g>/,
    );
    const de = renderWaterfallView(context('de'), steps, T0).value;
    expect(de).toContain('aria-label="Abbruch angefordert um 09:00:01,500"');
    expect(de).toContain('>⊘ Abbruch angefordert</text>');
  });

  it('puts the zoom links it is given under the legend', () => {
    const markup = renderWaterfallView(context('en'), [tool(0, T0 + 10, 5, 'ok')], T0, html`<nav class="zoom">z</nav>`).value;
    expect(markup.indexOf('<nav class="zoom">z</nav>')).toBeGreaterThan(markup.indexOf('class="legend"'));
    expect(markup.indexOf('<nav class="zoom">z</nav>')).toBeLessThan(markup.indexOf('<svg'));
  });
});
