// Issue 40 item 1: why a call failed, at every privacy level. Runs recorded through startRun at
// metadata, redacted and full, on each store the app runs on: the facts (HTTP status, JSON-RPC
// code, error class, the server's isError) are shown at every level on the run page, the server
// page's failed calls and `runs show`; the error message and the arguments and result only at
// redacted and full, redacted again, and never at metadata.
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { PrivacyLevel } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { cli } from './cliHelpers.js';
import { recordDecidedCalls, recordFailedCalls as record } from './failedCallsRun.js';
import { textOf } from './httpHelpers.js';
import { assertInertPage, request, started, STORES, useSecurityHarness, workDir } from './securityHarness.js';

useSecurityHarness();

const LEVELS: readonly PrivacyLevel[] = ['metadata', 'redacted', 'full'];

describe.each(STORES)('why a call failed on %s', (_name, open) => {
  it('shows the facts at every level, the message and content only at redacted and full', async () => {
    const store = await open();
    const ids = new Map<PrivacyLevel, string>();
    for (const level of LEVELS) ids.set(level, await record(store, level));
    const app = await started(store);
    for (const level of LEVELS) {
      const page = await request(app, `/runs/${ids.get(level)!}`);
      expect(page.status).toBe(200);
      const text = assertInertPage(page.body, `run page at ${level}`);
      expect(text, level).toContain('cause: HTTP status (answered 503)');
      expect(text).toContain('cause: JSON-RPC error (JSON-RPC -32603)');
      expect(text).toContain('cause: transport failure (ECONNRESET)');
      expect(text).toContain('cause: server error answer (answered isError)');
      expect(text).toContain("cause: the recorder's own error");
      const contentShown = level !== 'metadata';
      expect(page.body.includes('data-error-message'), level).toBe(contentShown);
      expect(page.body.includes('data-step-content'), level).toBe(contentShown);
      expect(text.includes('rate limited'), level).toBe(contentShown);
      // never the secrets, at any level: masked when recorded (redacted) or when shown (full)
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('abcdef123456');
      expect(text).not.toContain('ops@example.com');
      if (contentShown) {
        expect(text).toContain('Error message: MCP server "flaky" answered with HTTP status 503: down, token=[secret] mail [email]');
        expect(page.body).toContain('<details class="step-content" data-step-content><summary>Arguments and result (redacted)</summary>');
        expect(text).toContain('"password": "[secret]"');
        expect(text).toContain('"service": "billing"');
      }
      const german = textOf((await request(app, `/runs/${ids.get(level)!}?lang=de`)).body);
      expect(german).toContain('antwortete 503');
      expect(german).toContain('Fehler des aufzeichnenden Codes');
      if (contentShown) expect(german).toContain('Fehlermeldung:');
    }
    const server = await request(app, '/servers/flaky?window=all');
    const serverText = assertInertPage(server.body, 'server page');
    expect(serverText.match(/answered 503/g)).toHaveLength(LEVELS.length);
    expect(serverText.match(/JSON-RPC -32603/g)).toHaveLength(LEVELS.length);
    expect(serverText.match(/ECONNRESET/g)).toHaveLength(LEVELS.length);
    expect(serverText.match(/answered isError/g)).toHaveLength(LEVELS.length);
    expect(serverText).toContain("the recorder's own error");
    expect(textOf((await request(app, '/servers/flaky?window=all&lang=de')).body)).toContain('antwortete 503');
  });

  it('says who approved or refused a call and why, at every level, in English and German (issue 40 item 2)', async () => {
    const store = await open();
    for (const level of LEVELS) {
      const id = await recordDecidedCalls(store, level);
      const app = await started(store);
      const text = assertInertPage((await request(app, `/runs/${id}`)).body, `run page at ${level}`);
      expect(text, level).toContain('approval: Approved by alice');
      expect(text, level).toContain('approval: Refused by bob: too risky');
      expect(text, level).toContain('cause: not approved');
      expect(text, level).toMatch(/approval: Approved(?! by)/);
      const german = textOf((await request(app, `/runs/${id}?lang=de`)).body);
      expect(german).toContain('Freigabe: Freigegeben von alice');
      expect(german).toContain('Freigabe: Abgelehnt von bob: too risky');
    }
  });
});

describe('runs show', () => {
  it('prints the facts as details at every level, in text and --json', async () => {
    const dir = workDir();
    const path = join(dir, 'why.db');
    const store = await SqliteRunStore.open({ path });
    const id = await record(store, 'metadata');
    await store.close();
    const shown = await cli(['runs', 'show', id, '--db', path], dir);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('failureCause=mcp_http_status httpStatus=503');
    expect(shown.stdout).toContain('failureCause=mcp_json_rpc_error jsonRpcCode=-32603');
    expect(shown.stdout).toContain('failureCause=mcp_transport_failure errorClass=ECONNRESET');
    expect(shown.stdout).toContain('failureCause=server_error serverIsError=true');
    expect(shown.stdout).toContain('failureCause=recorder_error');
    const json = await cli(['runs', 'show', id, '--db', path, '--json'], dir);
    const timeline = (JSON.parse(json.stdout) as { timeline: { details: Record<string, unknown> }[] }).timeline;
    expect(timeline.map((entry) => entry.details).filter((details) => details['failureCause'] !== undefined)).toEqual([
      expect.objectContaining({ failureCause: 'mcp_http_status', httpStatus: 503 }),
      expect.objectContaining({ failureCause: 'mcp_json_rpc_error', jsonRpcCode: -32603 }),
      expect.objectContaining({ failureCause: 'mcp_transport_failure', errorClass: 'ECONNRESET' }),
      expect.objectContaining({ failureCause: 'server_error', serverIsError: true }),
      expect.objectContaining({ failureCause: 'recorder_error' }),
    ]);
  });

  it('prints who approved or refused a call in text and --json', async () => {
    const dir = workDir();
    const path = join(dir, 'approval.db');
    const store = await SqliteRunStore.open({ path });
    const id = await recordDecidedCalls(store, 'metadata');
    await store.close();
    const shown = await cli(['runs', 'show', id, '--db', path], dir);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('  Approved by alice');
    expect(shown.stdout).toContain('failureCause=not_approved');
    expect(shown.stdout).toContain('  Refused by bob: too risky');
    expect(shown.stdout).not.toContain('approvedBy=');
    const json = await cli(['runs', 'show', id, '--db', path, '--json'], dir);
    const timeline = (JSON.parse(json.stdout) as { timeline: { details: Record<string, unknown> }[] }).timeline;
    expect(timeline.map((entry) => entry.details).filter((details) => details['approved'] !== undefined)).toEqual([
      expect.objectContaining({ approved: true, approvedBy: 'alice' }),
      expect.objectContaining({ approved: false, approvedBy: 'bob', approvalReason: 'too risky', failureCause: 'not_approved' }),
      expect.not.objectContaining({ approvedBy: expect.anything() }),
    ]);
  });
});
