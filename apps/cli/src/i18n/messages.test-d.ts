import type { ToolOutcome } from '@runledger/core';
import type { RunCallState, RunLifecycleEvent, RunStatus, RunStepKind } from '@runledger/trace';
import { describe, expectTypeOf, it } from 'vitest';
import type { messagesDe as de } from './messagesDe.js';
import type { en, MessageCatalog, MessageKey } from './messagesEn.js';

describe('message catalogs', () => {
  it('has a key runs.detail.outcome.<outcome> for every ToolOutcome', () => {
    expectTypeOf<`runs.detail.outcome.${ToolOutcome}`>().toExtend<MessageKey>();
  });

  it('has a key runs.status.<status> for every RunStatus', () => {
    expectTypeOf<`runs.status.${RunStatus}`>().toExtend<MessageKey>();
  });

  it('has a key runs.detail.lifecycle.<event> for every RunLifecycleEvent', () => {
    expectTypeOf<`runs.detail.lifecycle.${RunLifecycleEvent}`>().toExtend<MessageKey>();
  });

  it('has a key runs.detail.kind.<kind> for every RunStepKind', () => {
    expectTypeOf<`runs.detail.kind.${RunStepKind}`>().toExtend<MessageKey>();
  });

  it('has a key runs.detail.callState.<state> for every RunCallState', () => {
    expectTypeOf<`runs.detail.callState.${RunCallState}`>().toExtend<MessageKey>();
  });

  it('types German as the full English key set', () => {
    expectTypeOf<typeof de>().toEqualTypeOf<MessageCatalog>();
    expectTypeOf<keyof typeof de>().toEqualTypeOf<keyof typeof en>();
  });

  it('refuses a catalog that misses a key', () => {
    const { 'nav.runs': _dropped, ...missingOne } = {} as MessageCatalog;
    // @ts-expect-error -- 'nav.runs' is missing
    const broken: MessageCatalog = missingOne;
    expectTypeOf(broken).toEqualTypeOf<MessageCatalog>();
  });

  it('refuses a catalog with a key English does not have', () => {
    const base = {} as MessageCatalog;
    // @ts-expect-error -- object literal may only specify known properties
    const broken: MessageCatalog = { ...base, 'runs.detail.outcome.timeout': 'timeout' };
    expectTypeOf(broken).toEqualTypeOf<MessageCatalog>();
  });

  it('refuses an outcome key that does not exist', () => {
    // @ts-expect-error -- not a message key
    const key: MessageKey = 'runs.detail.outcome.timeout';
    expectTypeOf(key).toEqualTypeOf<MessageKey>();
  });
});
