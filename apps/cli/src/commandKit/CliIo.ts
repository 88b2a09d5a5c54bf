/**
 * What the CLI reads and writes, so that tests run it in-process.
 *
 * @public
 */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborting it stops a serving command (serve, demo); the binary wires it to SIGINT/SIGTERM. */
  readonly signal?: AbortSignal;
  /** Called once a serving command listens, with its URL. */
  readonly onListening?: (url: string) => void;
}
