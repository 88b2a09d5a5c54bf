// What InMemoryRunStore reads of an appended tool step: the tool's name as its stored text holds
// it, without parsing that text when the appended payload is plain data holding the name.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryRunStore } from '../InMemoryRunStore.js';

afterEach(() => {
  vi.restoreAllMocks();
});

async function appendTool(
  payload: unknown,
  toolOutcome: 'ok' | 'failed' = 'ok',
): Promise<{ readonly tool: string | null; readonly parses: number; readonly cause: string | null; readonly facts: unknown }> {
  const store = InMemoryRunStore.create();
  const run = await store.createRun({ configuration: 'names' });
  const parse = vi.spyOn(JSON, 'parse');
  await store.appendStep(run.id, {
    kind: 'tool',
    round: 0,
    durationMs: 1,
    createdAt: 1,
    payload: payload as Readonly<Record<string, unknown>>,
    toolServer: 'srv',
    toolOutcome,
  });
  const parses = parse.mock.calls.length;
  parse.mockRestore();
  const page = await store.listToolCalls({ server: 'srv' });
  const call = page.calls[0];
  return { tool: call?.tool ?? null, parses, cause: call?.cause ?? null, facts: call?.failureFacts ?? null };
}

describe('InMemoryRunStore: an appended tool step', () => {
  it('is not parsed back from the text it was just written as, and keeps its tool name', async () => {
    expect(await appendTool({ kind: 'tool', toolName: 'mcp_srv_search', toolServer: 'srv' })).toEqual({
      tool: 'mcp_srv_search',
      parses: 0,
      cause: null,
      facts: null,
    });
  });

  it('is not parsed back for a failed call either: its cause and failure facts are read from the appended data', async () => {
    const failed = { kind: 'tool', toolName: 'mcp_srv_search', toolServer: 'srv', toolIsError: true, toolOutcome: 'failed' };
    expect(await appendTool({ ...failed, toolFailureCause: 'server_error', toolFailureFacts: { httpStatus: 503 } }, 'failed')).toEqual({
      tool: 'mcp_srv_search',
      parses: 0,
      cause: 'server_error',
      facts: { httpStatus: 503 },
    });
    expect(await appendTool(failed, 'failed')).toEqual({ tool: 'mcp_srv_search', parses: 0, cause: null, facts: null });
  });

  it('reads the name from the stored text when the payload is not plain data, as a database store would', async () => {
    class Payload {
      toJSON() {
        return { kind: 'tool', toolName: 'as stored' };
      }
      readonly toolName = 'as given';
    }
    expect((await appendTool(new Payload())).tool).toBe('as stored');
    const withGetter = {
      kind: 'tool',
      get toolName() {
        return 'a getter';
      },
    };
    expect((await appendTool(withGetter)).tool).toBe('a getter');
  });
});
