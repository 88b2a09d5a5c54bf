import type { RunTimelineEntry } from '@runledger/trace';
import { type Html, html } from '../html/Html.js';
import { serverPath } from '../viewModels/serverPath.js';
import type { ViewContext } from './ViewContext.js';

/**
 * A link to a server's page (`/servers/<id>`, with `params` such as the window) reading `text`
 * (default the server's name); the text alone when it is empty, there is no server, or no path
 * can name it (see {@link serverPath}).
 *
 * @internal
 */
export function serverLink(
  ctx: ViewContext,
  server: string | null,
  params: Readonly<Record<string, string | null>> = {},
  text: string = server ?? '',
): Html {
  const path = server === null ? null : serverPath(server);
  return path === null || text === '' ? html`${text}` : html`<a href="${ctx.href(path, params)}">${text}</a>`;
}

/** The MCP server a timeline entry called: a tool call's (ended or sent) server, else null. @internal */
export function toolServerOf(entry: RunTimelineEntry): string | null {
  return entry.event === null && (entry.kind === 'tool' || entry.kind === 'tool_start') && entry.source !== '' ? entry.source : null;
}
