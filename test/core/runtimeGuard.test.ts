import { describe, expect, it } from 'vitest';
import { assertSupportedRuntime } from '../../src/core/runtime';

describe('runtime guard', () => {
  it('refuses Node 20 with a sentence that says what to do', () => {
    expect(() => assertSupportedRuntime({ ...process.versions, node: '20.20.2' })).toThrow(/needs Node 22 or newer.*npm/);
  });
  it('accepts Node 22 and Electron', () => {
    expect(() => assertSupportedRuntime({ ...process.versions, node: '22.23.3' })).not.toThrow();
    expect(() => assertSupportedRuntime({ ...process.versions, node: '20.0.0', electron: '45.4.1' })).not.toThrow();
  });
});
