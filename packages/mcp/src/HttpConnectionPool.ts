// The HTTP connections of one MCP session: its own fetch over its own connection pool, so that an
// aborted request leaves no socket behind and closing the session closes every socket it opened.
import type { Agent } from 'undici';

type Undici = typeof import('undici');

/** How long an idle keep-alive connection stays open when the server gives no hint. */
const KEEP_ALIVE_MS = 4000;

let undici: Promise<Undici> | undefined;

/**
 * Loads undici once, leaving the application's own fetch() as it was.
 *
 * @remarks
 * Loading undici makes its Agent the process's global dispatcher (what every fetch() without a
 * dispatcher uses) when none is set yet. Reading `Headers` first loads Node's own fetch, which sets
 * its own, so undici finds one and changes nothing.
 */
function loadUndici(): Promise<Undici> {
  void globalThis.Headers;
  return (undici ??= import('undici'));
}

/**
 * The connections of one session with an HTTP MCP server.
 *
 * @remarks
 * Node's built-in fetch (undici 6 in Node 20 and 22) opens a fresh connection to the server right
 * after a request is aborted and keeps it open for good: it never carries a request, so no
 * keep-alive timer ever closes it. One socket per cancelled or timed-out call stays open unless a
 * later request happens to take it. undici 7 closes that connection again, and a pool of our own
 * lets the session drop every socket at once when it closes instead of waiting for keep-alive.
 */
export class HttpConnectionPool {
  #agent: Agent | undefined;
  #closed = false;

  /** A fetch whose connections belong to this pool; after {@link close} it rejects. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const { Agent, fetch } = await loadUndici();
    if (this.#closed) throw new Error('the HTTP connection pool of this session is closed');
    this.#agent ??= new Agent({ keepAliveTimeout: KEEP_ALIVE_MS });
    // undici's Request and Response are Node's fetch classes in shape; the types differ only in
    // undici's own extras (the dispatcher option among them).
    const response = await fetch(input as Parameters<typeof fetch>[0], { ...(init as Parameters<typeof fetch>[1]), dispatcher: this.#agent });
    return response as unknown as Response;
  };

  /** Destroys every connection of the pool, busy or idle; requests in flight fail. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const agent = this.#agent;
    this.#agent = undefined;
    await agent?.destroy().catch(() => undefined);
  }
}
