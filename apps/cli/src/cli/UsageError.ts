/**
 * A command line the CLI does not understand; the CLI prints the message and the usage and exits 2.
 *
 * @internal
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
