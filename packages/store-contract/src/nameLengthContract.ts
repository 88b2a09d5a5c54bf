// The name part of the contract (issue 38 item 4): one length rule, MAX_NAME_LENGTH characters,
// for every name a store keeps in an indexed column, refused alike by every store before any write.
import { InMemoryRunStore, type AppendStepInput } from '@runledger/trace';
import { MAX_NAME_LENGTH } from '@runledger/trace/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, toolStep } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

const SEED = Number(process.env['RUNLEDGER_INPUT_SEED'] ?? 20_261_205);
/** Each run writes to a real store: few, at the edges (limit − 1, limit, limit + 1) and around them. */
const NUM_RUNS = Number(process.env['RUNLEDGER_NAME_RUNS'] ?? 24);

/** Characters of 1, 2, 3 and 4 UTF-8 bytes (the last one two UTF-16 units). */
const CHARACTERS = ['a', 'é', '€', '😀'] as const;

/** Where a step names something a store keeps in an index. */
const STEP_FIELDS = ['toolServer', 'payload.toolServer', 'payload.toolName', 'payload.toolCallId'] as const;
type StepField = (typeof STEP_FIELDS)[number];

/** A name of `length` characters cycling through the given ones. */
function nameOf(characters: readonly string[], length: number): string {
  let name = '';
  for (let i = 0; i < length; i++) name += characters[i % characters.length]!;
  return name;
}

/** A tool step of server `github`, tool `search`, call `call-1`, one field replaced by `name`. */
function stepNaming(field: StepField, name: string, createdAt: number): AppendStepInput {
  const step = toolStep({ server: 'github', outcome: 'ok', toolName: 'search', createdAt });
  const payload = { ...(step.payload as Record<string, unknown>), toolCallId: 'call-1' };
  if (field === 'toolServer') return { ...step, toolServer: name, payload: { ...payload, toolServer: name } };
  return { ...step, payload: { ...payload, [field.slice('payload.'.length)]: name } };
}

const lengths = fc.oneof(
  fc.constantFrom(MAX_NAME_LENGTH - 1, MAX_NAME_LENGTH, MAX_NAME_LENGTH + 1),
  fc.integer({ min: 1, max: MAX_NAME_LENGTH * 2 }),
);
const characters = fc.subarray([...CHARACTERS], { minLength: 1 });

/** Called by {@link runRunStoreContract}. */
export function runNameLengthContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    describe(`names in indexed columns (generated, seed ${SEED})`, () => {
      it(`keeps a name of up to ${MAX_NAME_LENGTH} characters (any UTF-8 width) and refuses a longer one as invalid_input, naming the field and the rule`, async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'names', createdAt: BASE });
        let kept = 0;
        let refused = 0;
        let at = BASE;
        await fc.assert(
          fc.asyncProperty(fc.constantFrom('configuration', ...STEP_FIELDS), characters, lengths, async (field, chars, length) => {
            const value = nameOf(chars, length);
            const fits = length <= MAX_NAME_LENGTH;
            at++;
            const write = (): Promise<unknown> =>
              field === 'configuration'
                ? store.createRun({ configuration: value, createdAt: at })
                : store.appendStep(run.id, stepNaming(field, value, at));
            if (fits) {
              if (field === 'configuration') {
                const created = await store.createRun({ configuration: value, createdAt: at });
                expect((await store.getRun(created.id))?.configuration).toBe(value);
              } else {
                const sequence = await store.appendStep(run.id, stepNaming(field, value, at));
                const [stored] = await store.readSteps(run.id, { fromSequence: sequence, limit: 1 });
                const key = field === 'toolServer' ? 'toolServer' : field.slice('payload.'.length);
                expect((JSON.parse(stored!.payload) as Record<string, unknown>)[key]).toBe(value);
              }
              kept++;
              return;
            }
            const path = field === 'configuration' ? 'CreateRunInput.configuration' : `AppendStepInput.${field}`;
            const error = await expectStoreError(write(), 'invalid_input', new RegExp(`^${path.replace('.', '\\.')} must be `));
            expect(error.message).toContain(`at most ${MAX_NAME_LENGTH} characters`);
            expect(error.message).toContain(`got a string of ${length} characters`);
            refused++;
          }),
          { seed: SEED, numRuns: NUM_RUNS },
        );
        expect(kept, 'names kept').toBeGreaterThan(0);
        expect(refused, 'names refused').toBeGreaterThan(0);
        // a refusal wrote nothing: the run holds the kept steps only, in order, and still finishes
        const steps = await store.readSteps(run.id);
        expect(steps.map((step) => step.sequence)).toEqual(steps.map((_, i) => i));
        expect(await store.finishRun(run.id, { status: 'completed', finishedAt: at + 1 })).toMatchObject({ status: 'completed' });
      });

      it('refuses a long name in importRun as well, importing nothing', async () => {
        const source = InMemoryRunStore.create();
        const run = await source.createRun({ configuration: 'c', createdAt: BASE });
        await source.appendStep(run.id, toolStep({ server: 'github', outcome: 'ok', toolName: 'search', createdAt: BASE }));
        const storedRun = (await source.getRun(run.id))!;
        const [step] = await source.readSteps(run.id);
        const long = '😀'.repeat(MAX_NAME_LENGTH + 1);
        const store = await open();
        const rule = new RegExp(`at most ${MAX_NAME_LENGTH} characters.*got a string of ${MAX_NAME_LENGTH + 1} characters`);
        await expectStoreError(store.importRun({ ...storedRun, configuration: long }, [step!]), 'invalid_input', rule);
        await expectStoreError(store.importRun(storedRun, [{ ...step!, toolServer: long }]), 'invalid_input', /^steps\[0\]\.toolServer/);
        const payload = JSON.stringify({ ...(JSON.parse(step!.payload) as object), toolName: long });
        await expectStoreError(store.importRun(storedRun, [{ ...step!, payload }]), 'invalid_input', /^steps\[0\]\.payload\.toolName/);
        expect(await store.getRun(run.id)).toBeNull();
        expect(await store.importRun(storedRun, [step!])).toBe(true);
        await source.close();
      });
    });
  });
}
