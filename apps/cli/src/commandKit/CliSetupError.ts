/**
 * A setup to fix before the command can run, such as an optional package that is not installed;
 * the CLI prints the message (naming what to do) and exits 2, like a usage error.
 *
 * @internal
 */
export class CliSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliSetupError';
  }
}
