import { RunTrace } from '@runledger/trace';
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { recordingMiddleware } from './recordingMiddleware.js';
import { textAnswer } from './testing/harness.js';

describe('recordingMiddleware on generate calls', () => {
  it('records a call its signal aborted with finish reason aborted, and rethrows what the provider threw', async () => {
    const trace = RunTrace.create({ privacy: 'full' });
    const controller = new AbortController();
    const model = new MockLanguageModelV3({
      modelId: 'slow-model',
      doGenerate: (options) =>
        new Promise((_, reject) => {
          options.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason), { once: true });
        }),
    });
    const reason = new Error('stop now');
    const call = generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware({ trace, signal: controller.signal }) }),
      prompt: 'x',
      abortSignal: controller.signal,
      maxRetries: 0,
    });
    setTimeout(() => controller.abort(reason), 20);
    await expect(call).rejects.toBe(reason);
    expect(trace.steps.map((s) => [s.kind, s.round, s.model, s.finishReason, s.durationMs > 0])).toEqual([
      ['llm', 1, 'slow-model', 'aborted', true],
    ]);
  });

  it('records the model’s provider on the llm step (the OpenTelemetry export’s gen_ai.provider.name), at every privacy level', async () => {
    for (const privacy of ['metadata', 'full'] as const) {
      const trace = RunTrace.create({ privacy });
      const model = new MockLanguageModelV3({ provider: 'openai.chat', modelId: 'gpt-x', doGenerate: textAnswer('ok', [1, 1]) });
      await generateText({
        model: wrapLanguageModel({ model, middleware: recordingMiddleware({ trace, signal: new AbortController().signal }) }),
        prompt: 'x',
      });
      expect(trace.steps.map((s) => [s.kind, s.model, s.provider])).toEqual([['llm', 'gpt-x', 'openai.chat']]);
      expect(trace.steps[0]?.toPayload()).toMatchObject({ provider: 'openai.chat' });
    }
  });

  it('records a failed call with finish reason error, and numbers the rounds of one run across generateText calls', async () => {
    const trace = RunTrace.create({ privacy: 'full' });
    const run = { trace, signal: new AbortController().signal };
    const failing = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error('the provider is down');
      },
    });
    await expect(
      generateText({ model: wrapLanguageModel({ model: failing, middleware: recordingMiddleware(run) }), prompt: 'x', maxRetries: 0 }),
    ).rejects.toThrow('the provider is down');
    const answering = new MockLanguageModelV3({ modelId: 'm2', doGenerate: textAnswer('fine', [7, 3]) });
    await generateText({ model: wrapLanguageModel({ model: answering, middleware: recordingMiddleware(run) }), prompt: 'x' });
    expect(
      trace.steps.map((s) => [s.round, s.finishReason, s.content ?? null, s.promptTokens ?? null, s.completionTokens ?? null]),
    ).toEqual([
      [1, 'error', null, null, null],
      [2, 'stop', 'fine', 7, 3],
    ]);
  });
});
