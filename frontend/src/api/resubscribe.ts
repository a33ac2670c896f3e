import type { ExecutionResult, Sink } from 'graphql-ws';

/** Subscribe starts one subscription into sink and returns its release. */
export type Subscribe = (sink: Sink<ExecutionResult>) => () => void;

/** Timers lets a test drive the pauses with a manual clock. */
export interface Timers {
  set: (run: () => void, ms: number) => unknown;
  clear: (handle: unknown) => void;
  random: () => number;
}

const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: Math.random,
};

/** FIRST_PAUSE_MS and LAST_PAUSE_MS bound the pause before following again. */
export const FIRST_PAUSE_MS = 1000;
export const LAST_PAUSE_MS = 30_000;

/**
 * followAgain keeps a live subscription live. The server ends a
 * subscription early (it completes it) when events may have been lost: the
 * socket fell behind, or the platform's event bus lost its connection. The
 * subscription then starts again, after a short pause, and its first event
 * is the current state again, so the page shows what is true without a
 * reload. A subscription the server refused because a service was briefly
 * out of reach (UNAVAILABLE) is tried again the same way, after the pause
 * the server asked for; one refused for any other reason (FORBIDDEN, a bad
 * argument) ends, as does a protocol error, and so does every subscription
 * once alive() turns false (the client was thrown away: graphql-ws then
 * completes what it carried). Pauses are jittered, so a thousand pages do
 * not come back in the same instant (never sooner than the server asked),
 * and double while subscribing again brings nothing, up to LAST_PAUSE_MS.
 */
export function followAgain(
  subscribe: Subscribe,
  sink: Sink<ExecutionResult>,
  timers: Timers = realTimers,
  alive: () => boolean = () => true,
): () => void {
  let stopped = false;
  let timer: unknown;
  let pause = FIRST_PAUSE_MS;
  let release = () => {};

  const start = () => {
    timer = undefined;
    let retryAfterMs: number | undefined;
    let refused = false;
    release = subscribe({
      next(result) {
        const errors = result.errors ?? [];
        const data = result.data !== null && result.data !== undefined;
        if (data) pause = FIRST_PAUSE_MS;
        if (!data && errors.length > 0) {
          const unavailable = errors.every((e) => e.extensions?.code === 'UNAVAILABLE');
          refused = !unavailable;
          if (unavailable) {
            const seconds = Number(errors[0]?.extensions?.retryAfterSeconds);
            retryAfterMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
          }
        }
        sink.next(result);
      },
      error(err) {
        sink.error(err);
      },
      complete() {
        if (stopped || refused || !alive()) {
          sink.complete();
          return;
        }
        const wait = retryAfterMs !== undefined ? retryAfterMs * (1 + timers.random() / 2) : pause * (0.5 + timers.random());
        pause = Math.min(pause * 2, LAST_PAUSE_MS);
        timer = timers.set(start, wait);
      },
    });
  };

  start();
  return () => {
    if (stopped) return;
    stopped = true;
    if (timer !== undefined) {
      timers.clear(timer);
      sink.complete();
      return;
    }
    release();
  };
}
