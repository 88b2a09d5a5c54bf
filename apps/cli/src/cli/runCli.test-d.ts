import { expectTypeOf, it } from 'vitest';
import type { CliExitCode } from '../commandKit/cliSurface.js';
import type { runCli } from './runCli.js';

it('runCli resolves to a declared exit code, not any number (a new `return 3` does not compile)', () => {
  expectTypeOf<Awaited<ReturnType<typeof runCli>>>().toEqualTypeOf<CliExitCode>();
  expectTypeOf<3>().not.toExtend<Awaited<ReturnType<typeof runCli>>>();
});
