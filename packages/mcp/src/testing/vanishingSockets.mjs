// The sockets of the POSTs carrying a `vanish` call, for the HTTP fixture servers (SDK 2.x and 1.x):
// a server that ran a write and then closed the connection before any byte of its answer.
import { appendFileSync } from 'node:fs';

/**
 * Holds each `vanish` POST's socket corked (no byte of an answer leaves) until `destroy()`.
 * `hold` reports how many requests the connection carried before this one (> 0: a reused
 * keep-alive connection) to `eventsFile`; the HTTP server counts them as `socket.requestsServed`.
 */
export function vanishingSockets() {
  const held = new Set();
  return {
    hold(socket, eventsFile) {
      const event = { pid: process.pid, at: Date.now(), tool: 'vanish', event: 'post', earlierRequests: socket.requestsServed - 1 };
      if (eventsFile) appendFileSync(eventsFile, `${JSON.stringify(event)}\n`);
      socket.cork();
      held.add(socket);
    },
    destroy() {
      for (const socket of held) socket.destroy();
      held.clear();
    },
  };
}
