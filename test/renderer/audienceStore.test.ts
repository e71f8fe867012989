// @vitest-environment happy-dom
// The audience store's own logic against an in-memory fake: the count is debounced, and an answer
// to an older request never overwrites a newer one. (End-to-end counts: test/e2e.)
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { nextTick } from 'vue';
import { setBridge } from '../../src/renderer/src/bridge';
import { BridgeError } from '../../src/renderer/src/bridge/bridgeError';
import { COUNT_DEBOUNCE_MS, useAudienceStore } from '../../src/renderer/src/stores/audience';
import type { OutputOf } from '../../src/shared/contract';
import { countAnswer, deferred, fakeBridge } from './support/fakeBridge';

beforeEach(() => {
  setActivePinia(createPinia());
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  // A timer left by the test (the count's debounce) must never reach a real transport.
  setBridge(fakeBridge());
});

async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(COUNT_DEBOUNCE_MS + 1);
  await nextTick();
}

describe('audience store', () => {
  it('counts once after a burst of changes, with the time the core took', async () => {
    const bridge = fakeBridge({ 'audience/count': () => countAnswer(42, 3.25) });
    setBridge(bridge);
    const a = useAudienceStore();
    a.setState('ca');
    await nextTick();
    a.toggleValue('GENDER', 'F');
    await nextTick();
    a.toggleValue('GENDER', 'M');
    await nextTick();
    await vi.advanceTimersByTimeAsync(COUNT_DEBOUNCE_MS - 20);
    expect(bridge['audience/count']).not.toHaveBeenCalled();
    await settle();
    expect(bridge['audience/count']).toHaveBeenCalledTimes(1);
    expect(bridge['audience/count']).toHaveBeenCalledWith({ state: 'CA', filters: [['GENDER', ['F', 'M']]] });
    expect(a.total).toBe(42);
    expect(a.ms).toBe(3.25);
    expect(a.version).toBe(1);
  });

  it('drops an answer that arrives after a newer request was sent', async () => {
    const first = deferred<OutputOf<'audience/count'>>();
    const second = deferred<OutputOf<'audience/count'>>();
    const answers = [first, second];
    const bridge = fakeBridge({ 'audience/count': () => answers.shift()!.promise });
    setBridge(bridge);
    const a = useAudienceStore();
    a.setState('CA');
    await settle();
    a.toggleValue('GENDER', 'F');
    await settle();
    expect(bridge['audience/count']).toHaveBeenCalledTimes(2);
    second.resolve(countAnswer(7));
    await vi.advanceTimersByTimeAsync(0);
    first.resolve(countAnswer(999));
    await vi.advanceTimersByTimeAsync(0);
    expect(a.total).toBe(7);
    expect(a.counting).toBe(false);
  });

  it('shows a core error as a readable message and clears it on the next good answer', async () => {
    let fail = true;
    setBridge(
      fakeBridge({
        'audience/count': () => {
          if (fail) throw new BridgeError('invalid_request', 'Filter value "x" for AGE must be N, LO-HI or N+.', 'AGE');
          return countAnswer(5);
        },
      }),
    );
    const a = useAudienceStore();
    a.setState('CA');
    a.setValues('AGE', ['x']);
    await settle();
    expect(a.error).toBe('That request is not valid: Filter value "x" for AGE must be N, LO-HI or N+.');
    fail = false;
    a.setValues('AGE', ['30']);
    await settle();
    expect(a.error).toBeNull();
    expect(a.total).toBe(5);
  });

  it('leaves filters without values out of the request, and marks them incomplete', async () => {
    const bridge = fakeBridge();
    setBridge(bridge);
    const a = useAudienceStore();
    a.setState('TX');
    a.addFilter('marriedcd');
    a.toggleValue('GENDER', 'F');
    await settle();
    expect(a.incomplete).toEqual(['MARRIEDCD']);
    expect(bridge['audience/count']).toHaveBeenLastCalledWith({ state: 'TX', filters: [['GENDER', ['F']]] });
  });

  it('loads a saved audience, merging repeated fields into one filter', () => {
    setBridge(fakeBridge());
    const a = useAudienceStore();
    a.load({
      state: 'ny',
      filters: [
        ['gender', ['F']],
        ['AGE', ['25-34']],
        ['GENDER', ['M', 'F']],
      ],
    });
    expect(a.state).toBe('NY');
    expect(a.filters).toEqual([
      { field: 'GENDER', values: ['F', 'M'] },
      { field: 'AGE', values: ['25-34'] },
    ]);
    a.removeFilter('GENDER');
    expect(a.requestFilters).toEqual([['AGE', ['25-34']]]);
  });
});
