// @vitest-environment happy-dom
// The audience's edit history (stores/audience: undo, redo) and its keys (lib/historyKeys), against
// an in-memory fake bridge. Keyboard paths in real Chromium: test/e2e/workspace.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { nextTick } from 'vue';
import { setBridge } from '../../src/renderer/src/bridge';
import { COUNT_DEBOUNCE_MS, HISTORY_MAX, useAudienceStore } from '../../src/renderer/src/stores/audience';
import { historyKeyAction } from '../../src/renderer/src/lib/historyKeys';
import { statesLabel } from '../../src/renderer/src/lib/statesLabel';
import { STATE_CODES } from '../../src/shared/states';
import { countAnswer, fakeBridge } from './support/fakeBridge';

beforeEach(() => {
  setActivePinia(createPinia());
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  setBridge(fakeBridge());
});

async function settle(): Promise<void> {
  await nextTick();
  await vi.advanceTimersByTimeAsync(COUNT_DEBOUNCE_MS + 1);
  await nextTick();
}

describe('edit history', () => {
  it('undoes and redoes committed edits, a burst of changes being one step', async () => {
    const bridge = fakeBridge({ 'audience/count': () => countAnswer(1) });
    setBridge(bridge);
    const a = useAudienceStore();
    a.setState('CA');
    await settle();
    expect(a.canUndo).toBe(false);
    a.toggleValue('GENDER', 'F');
    a.toggleValue('GENDER', 'M');
    await settle();
    a.setState('TX');
    await settle();
    expect(a.committed).toMatchObject({ state: 'TX', filters: [['GENDER', ['F', 'M']]] });

    a.undo();
    expect(a.committed).toMatchObject({ state: 'CA', filters: [['GENDER', ['F', 'M']]] });
    a.undo();
    expect(a.committed).toMatchObject({ state: 'CA', filters: [] });
    expect(a.canUndo).toBe(false);
    a.undo();
    expect(a.committed).toMatchObject({ state: 'CA', filters: [] });
    a.redo();
    a.redo();
    expect(a.committed).toMatchObject({ state: 'TX', filters: [['GENDER', ['F', 'M']]] });
    expect(a.canRedo).toBe(false);
    // Undo and redo are not edits of their own: after settling, nothing new was recorded.
    await settle();
    a.undo();
    expect(a.committed?.state).toBe('CA');
    // A new edit after an undo forgets what could have been redone.
    a.toggleValue('AGE', '65+');
    await settle();
    expect(a.canRedo).toBe(false);
    expect(bridge['audience/count']).toHaveBeenLastCalledWith({
      state: 'CA',
      filters: [
        ['GENDER', ['F', 'M']],
        ['AGE', ['65+']],
      ],
    });
  });

  it('commits an edit still waiting for its count before undoing it', async () => {
    setBridge(fakeBridge({ 'audience/count': () => countAnswer(1) }));
    const a = useAudienceStore();
    a.setState('CA');
    await settle();
    a.toggleValue('GENDER', 'F');
    await nextTick();
    a.undo();
    expect(a.committed).toMatchObject({ state: 'CA', filters: [] });
    a.redo();
    expect(a.committed).toMatchObject({ filters: [['GENDER', ['F']]] });
  });

  it('keeps at most HISTORY_MAX steps and several states as one edit', async () => {
    setBridge(fakeBridge({ 'audience/count': () => countAnswer(1) }));
    const a = useAudienceStore();
    a.setState('CA');
    await settle();
    for (let i = 0; i < HISTORY_MAX + 5; i++) {
      a.setValues('AGE', [String(20 + i)]);
      await settle();
    }
    let steps = 0;
    while (a.canUndo) {
      a.undo();
      steps++;
    }
    expect(steps).toBe(HISTORY_MAX);
    a.setStates(['tx', 'CA', 'TX']);
    await settle();
    expect(a.states).toEqual(['CA', 'TX']);
    expect(a.committed).toMatchObject({ state: 'CA', states: ['CA', 'TX'] });
    a.undo();
    expect(a.committed?.states).toBeUndefined();
  });
});

describe('history keys', () => {
  const key = (k: string, mods: Partial<KeyboardEvent> = {}, target: EventTarget | null = document.body) =>
    historyKeyAction({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, target, ...mods });

  it('reads Ctrl/Cmd+Z as undo, Ctrl+Shift+Z and Ctrl+Y as redo, anything else as nothing', () => {
    expect(key('z', { ctrlKey: true })).toBe('undo');
    expect(key('z', { metaKey: true })).toBe('undo');
    expect(key('Z', { ctrlKey: true, shiftKey: true })).toBe('redo');
    expect(key('y', { ctrlKey: true })).toBe('redo');
    expect(key('z')).toBeNull();
    expect(key('z', { ctrlKey: true, altKey: true })).toBeNull();
    expect(key('x', { ctrlKey: true })).toBeNull();
  });

  it('leaves the keys to a text box, but not to a checkbox', () => {
    const text = document.createElement('input');
    const search = document.createElement('input');
    search.type = 'search';
    const box = document.createElement('input');
    box.type = 'checkbox';
    expect(key('z', { ctrlKey: true }, text)).toBeNull();
    expect(key('z', { ctrlKey: true }, search)).toBeNull();
    expect(key('z', { ctrlKey: true }, document.createElement('textarea'))).toBeNull();
    expect(key('z', { ctrlKey: true }, box)).toBe('undo');
  });
});

describe('statesLabel', () => {
  it('names one state, lists up to three, counts more and says "all states" for every one', () => {
    expect(statesLabel(['CA'])).toBe('California');
    expect(statesLabel(['CA', 'NY', 'TX'])).toBe('CA, NY and TX');
    expect(statesLabel(['CA', 'NY', 'TX', 'WA'])).toBe('4 states');
    expect(statesLabel([...STATE_CODES])).toBe('all states');
  });
});
