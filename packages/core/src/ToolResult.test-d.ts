import { describe, expectTypeOf, it } from 'vitest';
import { type ChannelBounds, type ToolOutcome, ToolArtifact, ToolResult, WriteTarget } from './index.js';

const artifact = ToolArtifact.text('note', 'n');
const target = WriteTarget.created('ticket', '1');

describe('ToolResult types', () => {
  it('outcome is the ToolOutcome union, isError a boolean, fields are read-only', () => {
    const result = ToolResult.text('x');
    expectTypeOf(result.outcome).toEqualTypeOf<ToolOutcome>();
    expectTypeOf(result.outcome).toEqualTypeOf<'ok' | 'failed' | 'cancelled'>();
    expectTypeOf(result.isError).toEqualTypeOf<boolean>();
    expectTypeOf(result.content).toEqualTypeOf<string>();
    expectTypeOf(result.artifacts).toEqualTypeOf<readonly ToolArtifact[]>();
    expectTypeOf(result.writeTarget).toEqualTypeOf<WriteTarget | null>();
    // @ts-expect-error content is read-only
    result.content = 'y';
    // @ts-expect-error outcome is read-only
    result.outcome = 'failed';
    // @ts-expect-error isError is a getter without a setter
    result.isError = true;
    // @ts-expect-error writeTarget is read-only
    result.writeTarget = target;
    // @ts-expect-error artifacts is a read-only array
    result.artifacts.push(artifact);
  });

  it('new ToolResult(...) does not compile: the constructor is private', () => {
    // @ts-expect-error the constructor is private
    const made = () => new ToolResult();
    // @ts-expect-error the constructor is private, whatever the arguments
    const made2 = () => new ToolResult(Symbol('x'), 'x', 'failed', [artifact], target);
    // @ts-expect-error a subclass cannot call the private constructor either
    class Sub extends ToolResult {}
    expectTypeOf(made).returns.toEqualTypeOf<ToolResult>();
    expectTypeOf(made2).returns.toEqualTypeOf<ToolResult>();
    expectTypeOf(Sub).not.toBeAny();
  });

  it('error() and cancelled() take only the content: artifacts and targets do not compile', () => {
    // @ts-expect-error a failed result takes no artifacts
    ToolResult.error('boom', artifact);
    // @ts-expect-error a failed result takes no write target
    ToolResult.error('boom', target);
    // @ts-expect-error a cancelled result takes no artifacts
    ToolResult.cancelled('stopped', artifact);
    // @ts-expect-error a cancelled result takes no write target
    ToolResult.cancelled('stopped', target);
    expectTypeOf(ToolResult.error).parameters.toEqualTypeOf<[content: string]>();
    expectTypeOf(ToolResult.cancelled).parameters.toEqualTypeOf<[content: string]>();
  });

  it('text() takes artifacts, written() a target then artifacts', () => {
    expectTypeOf(ToolResult.text).parameters.toEqualTypeOf<[content: string, ...artifacts: ToolArtifact[]]>();
    expectTypeOf(ToolResult.written).parameters.toEqualTypeOf<[content: string, target: WriteTarget, ...artifacts: ToolArtifact[]]>();
    // @ts-expect-error written() needs a target
    ToolResult.written('x');
    // Note: a structurally identical plain object does compile as a WriteTarget/ToolArtifact (the
    // classes have no private instance member that would make them nominal); the factories refuse
    // it at runtime (see ToolResult.test.ts).
    // @ts-expect-error content must be a string
    ToolResult.text(42);
  });

  it('withBoundedChannels takes optional ChannelBounds and returns a ToolResult', () => {
    expectTypeOf(ToolResult.text('x').withBoundedChannels).parameters.toEqualTypeOf<[bounds?: ChannelBounds]>();
    expectTypeOf(ToolResult.text('x').withBoundedChannels()).toEqualTypeOf<ToolResult>();
    // @ts-expect-error unknown bound
    ToolResult.text('x').withBoundedChannels({ bytes: 10 });
    // @ts-expect-error a bound is a number
    ToolResult.text('x').withBoundedChannels({ contentBytes: '10' });
  });

  it('ToolResult.is narrows unknown', () => {
    const value: unknown = ToolResult.text('x');
    if (ToolResult.is(value)) {
      expectTypeOf(value).toEqualTypeOf<ToolResult>();
    }
  });
});
