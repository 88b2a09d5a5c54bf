import { ABORTED, ERRORED, type StreamPart } from './llmCallRecord.js';

/** What {@link recordedStream} tells about the stream it passes on. */
export interface StreamRecording {
  /** The call's signal: its abort ends the stream at once. */
  readonly signal: AbortSignal | undefined;
  /** Sees each part before the consumer does. */
  onPart(part: StreamPart): void;
  /** Called once: when the stream ended (no reason), or was aborted or failed (the reason). */
  end(finishReason?: string): Promise<void>;
}

/**
 * Passes a model's stream on and calls `end` exactly once: when it finished, failed, was
 * cancelled by its consumer, or when the call's signal was aborted — then with what was received,
 * and the stream is stopped (errored with the abort reason, its source cancelled) even if the
 * provider does not listen to the signal.
 */
export function recordedStream(source: ReadableStream<StreamPart>, recording: StreamRecording): ReadableStream<StreamPart> {
  const reader = source.getReader();
  const { signal } = recording;
  let ended = false;
  let onAbort: (() => void) | undefined;
  const end = (finishReason?: string): Promise<void> => {
    if (ended) return Promise.resolve();
    ended = true;
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    return recording.end(finishReason);
  };
  return new ReadableStream<StreamPart>({
    start(controller) {
      if (signal === undefined) return;
      onAbort = () => {
        if (ended) return;
        void end(ABORTED);
        controller.error(signal.reason);
        reader.cancel(signal.reason).catch(() => undefined);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        if (ended) return;
        await end(signal?.aborted === true ? ABORTED : ERRORED);
        controller.error(error);
        return;
      }
      if (ended) return;
      if (next.done) {
        await end();
        controller.close();
        return;
      }
      recording.onPart(next.value);
      controller.enqueue(next.value);
    },
    async cancel(reason) {
      await end(ABORTED);
      await reader.cancel(reason);
    },
  });
}
