/**
 * A command line the CLI does not understand; the CLI prints the message and the usage of the
 * command it names (or, for no known command, where to find the list) and exits 2.
 *
 * @internal
 */
export class UsageError extends Error {
  /** The command whose usage is printed with the message (`runs list`), or null for none. */
  readonly command: string | null;

  constructor(message: string, command: string | null = null) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}
