import { GraphQLError } from 'graphql';
import type { ExecutionResult, Sink } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { FIRST_PAUSE_MS, LAST_PAUSE_MS, followAgain, type Timers } from './resubscribe';

/** server plays the WebSocket client's side of each subscription it starts. */
function server() {
  const follows: { sink: Sink<ExecutionResult>; released: boolean }[] = [];
  const subscribe = (sink: Sink<ExecutionResult>) => {
    const follow = { sink, released: false };
    follows.push(follow);
    return () => {
      follow.released = true;
      // graphql-ws completes the sink once the release has gone out.
      sink.complete();
    };
  };
  const last = () => {
    const follow = follows[follows.length - 1];
    if (!follow) throw new Error('nothing subscribed yet');
    return follow;
  };
  return { follows, subscribe, last };
}

/** manualTimers runs pauses only when the test says, with no jitter (random 0.5). */
function manualTimers() {
  const pending = new Map<number, { run: () => void; ms: number }>();
  let next = 0;
  const timers: Timers = {
    set: (run, ms) => {
      pending.set(++next, { run, ms });
      return next;
    },
    clear: (handle) => pending.delete(handle as number),
    random: () => 0.5,
  };
  const fire = () => {
    const first = [...pending][0];
    if (!first) throw new Error('no pause is pending');
    const [id, t] = first;
    pending.delete(id);
    t.run();
    return t.ms;
  };
  return { timers, pending, fire };
}

function collector() {
  const got: ExecutionResult[] = [];
  let completed = 0;
  let failed: unknown;
  const sink: Sink<ExecutionResult> = {
    next: (r) => got.push(r),
    error: (e) => (failed = e),
    complete: () => completed++,
  };
  return { sink, got, completed: () => completed, failed: () => failed };
}

const state = (n: number): ExecutionResult => ({ data: { earningsUpdated: { n } } });

describe('followAgain', () => {
  it('follows again after the server ends a subscription early, from the current state', () => {
    const srv = server();
    const clock = manualTimers();
    const page = collector();
    const stop = followAgain(srv.subscribe, page.sink, clock.timers);

    srv.last().sink.next(state(1));
    srv.last().sink.complete(); // the bus lost events: the server ends it
    expect(page.completed()).toBe(0);
    expect(srv.follows).toHaveLength(1);
    expect(clock.fire()).toBe(FIRST_PAUSE_MS);
    expect(srv.follows).toHaveLength(2);

    srv.last().sink.next(state(2)); // the current state again
    expect(page.got).toEqual([state(1), state(2)]);

    stop();
    expect(srv.last().released).toBe(true);
    expect(page.completed()).toBe(1);
    expect(clock.pending.size).toBe(0);
  });

  it('waits longer each time following again brings nothing, up to a bound', () => {
    const srv = server();
    const clock = manualTimers();
    followAgain(srv.subscribe, collector().sink, clock.timers);
    const pauses: number[] = [];
    for (let i = 0; i < 7; i++) {
      srv.last().sink.complete();
      pauses.push(clock.fire());
    }
    expect(pauses).toEqual([1000, 2000, 4000, 8000, 16000, LAST_PAUSE_MS, LAST_PAUSE_MS]);
    srv.last().sink.next(state(1));
    srv.last().sink.complete();
    expect(clock.fire()).toBe(FIRST_PAUSE_MS);
  });

  it('tries a subscription refused as UNAVAILABLE again after the pause the server asked for', () => {
    const srv = server();
    const clock = manualTimers();
    const page = collector();
    followAgain(srv.subscribe, page.sink, clock.timers);
    const refusal: ExecutionResult = {
      data: null,
      errors: [new GraphQLError('Redis is out of reach', { extensions: { code: 'UNAVAILABLE', retryAfterSeconds: 5 } })],
    };
    srv.last().sink.next(refusal);
    srv.last().sink.complete();
    expect(page.got).toEqual([refusal]); // the page may say so meanwhile
    expect(clock.fire()).toBe(5000 * 1.25); // never sooner than asked; random 0.5 here
    expect(srv.follows).toHaveLength(2);
  });

  it('ends a subscription refused for another reason, and on a protocol error', () => {
    const srv = server();
    const clock = manualTimers();
    const page = collector();
    followAgain(srv.subscribe, page.sink, clock.timers);
    srv.last().sink.next({ data: null, errors: [new GraphQLError('not a provider', { extensions: { code: 'FORBIDDEN' } })] });
    srv.last().sink.complete();
    expect(page.completed()).toBe(1);
    expect(clock.pending.size).toBe(0);

    const other = collector();
    followAgain(srv.subscribe, other.sink, clock.timers);
    const err = new Error('4400 bad request');
    srv.last().sink.error(err);
    expect(other.failed()).toBe(err);
    expect(clock.pending.size).toBe(0);
    expect(srv.follows).toHaveLength(2);
  });

  it('ends with the client it was made for', () => {
    const srv = server();
    const clock = manualTimers();
    const page = collector();
    let alive = true;
    followAgain(srv.subscribe, page.sink, clock.timers, () => alive);
    alive = false; // the client is disposed: graphql-ws completes what it carried
    srv.last().sink.complete();
    expect(page.completed()).toBe(1);
    expect(clock.pending.size).toBe(0);
    expect(srv.follows).toHaveLength(1);
  });

  it('stops during a pause without subscribing again', () => {
    const srv = server();
    const clock = manualTimers();
    const page = collector();
    const stop = followAgain(srv.subscribe, page.sink, clock.timers);
    srv.last().sink.complete();
    expect(clock.pending.size).toBe(1);
    stop();
    expect(clock.pending.size).toBe(0);
    expect(page.completed()).toBe(1);
    expect(srv.follows).toHaveLength(1);
  });
});
