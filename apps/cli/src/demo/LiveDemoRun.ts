import { PrivacyLevel, type RunStore, startRun } from '@runledger/trace';
import { DemoAgent } from './DemoAgent.js';
import type { DemoServers } from './DemoServers.js';
import { waitForCallStarts } from './waitForCallStarts.js';

/**
 * The privacy level the demo records at: `redacted`, so that its pages show why a call failed (the
 * flaky server's "… answered 503") with secrets masked. @internal
 */
export const DEMO_PRIVACY: PrivacyLevel = PrivacyLevel.REDACTED;

/**
 * The run the demo leaves running while it serves the app: a slow MCP call on the wire, for the
 * operator to cancel from the app. @internal
 */
export interface LiveDemoRun {
  /** The run's id. */
  readonly id: string;
  /**
   * Ends the run `cancelled` with this reason unless it has ended already (the app's Cancel, or
   * its call answered), waits until its final status is stored, and closes the demo servers when
   * the run was handed them to close. Idempotent.
   */
  stop(reason: string): Promise<void>;
}

/** How long the live run's call takes unless cancelled: ten minutes (the `slow` server's deadline is longer). @internal */
export const LIVE_CALL_SECONDS = 600;

/** What the live run is: its configuration, its title, the tool it leaves on the wire. @internal */
export const LIVE_RUN = {
  configuration: 'report-agent',
  title: 'annual ledger export, left running with a slow call on the wire (try Cancel)',
  tool: 'mcp_slow_export_report',
} as const;
const { configuration: CONFIGURATION, tool: TOOL } = LIVE_RUN;

/**
 * Starts the demo's live run: an AI SDK loop whose first tool call, `mcp_slow_export_report`
 * on the `slow` server, takes {@link LIVE_CALL_SECONDS} seconds and honours cancellation. Resolves
 * once that call's start is recorded (it is on the wire); the run then goes on in the background
 * and ends `cancelled` when cancelled (the app's button, or {@link LiveDemoRun.stop}), never
 * `failed`, or `completed` when the call answers.
 *
 * `options.closeServers`: whether {@link LiveDemoRun.stop} closes the servers (they must outlive
 * the run); when this function throws, they are left to the caller.
 *
 * @throws Error from `startLiveDemoRun` when the run cannot be created or ends before its call is sent.
 * @internal
 */
export async function startLiveDemoRun(
  store: RunStore,
  servers: DemoServers,
  options: { readonly closeServers: boolean },
): Promise<LiveDemoRun> {
  const run = await startRun(store, {
    configuration: CONFIGURATION,
    title: LIVE_RUN.title,
    actor: 'runledger demo',
    cancelPollMs: 50,
    privacy: DEMO_PRIVACY,
  });
  const agent = new DemoAgent(run.trace, run.signal, { writes: (tool) => tool.name === TOOL });
  const question = 'Export the annual ledger to the archive.';
  const played = (async () => {
    await agent.request(question);
    await agent.play(
      question,
      [...servers.tools.values()],
      [
        {
          answer: 'Exporting the annual ledger; this takes a while.',
          promptTokens: 512,
          completionTokens: 47,
          calls: [{ tool: TOOL, input: { report: 'annual-ledger', seconds: LIVE_CALL_SECONDS } }],
        },
        { answer: 'Exported.', promptTokens: 860, completionTokens: 9 },
      ],
    );
  })();
  // After a cancel, complete() and fail() both end the run cancelled.
  const ended = played.then(
    () => run.complete(),
    (error: unknown) => run.fail(error),
  );
  if (!(await waitForCallStarts(run, 1, ended))) {
    await ended.catch(() => undefined);
    throw new Error(`the demo's live run ${run.id} ended (${run.status}) before its ${TOOL} call was sent`);
  }
  let stopped: Promise<void> | null = null;
  return {
    id: run.id,
    stop(reason) {
      stopped ??= (async () => {
        try {
          if (run.status === 'running') await run.cancel(reason);
          await ended;
        } finally {
          if (options.closeServers) await servers.close();
        }
      })();
      return stopped;
    },
  };
}
