// The handler table itself: every contract operation present exactly once, inputs parsed before a
// handler runs, errors only as AppError (unknown failures as internal_error), and dispatch's envelope.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHandlers, dispatch } from '../../src/core/handlers';
import { HandlerRegistry } from '../../src/core/handlers/registry';
import { OPERATION_NAMES } from '../../src/shared/contract';
import { AppError } from '../../src/shared/errors';
import { failure, startHandlers, type HandlerHarness } from './harness';

let t: HandlerHarness;
beforeAll(async () => {
  t = await startHandlers(inject('datasetPath'));
});
afterAll(() => t.close());

describe('handler table', () => {
  it('implements exactly the contract operations', () => {
    expect(Object.keys(t.h).sort()).toEqual([...OPERATION_NAMES].sort());
    for (const name of OPERATION_NAMES) expect(typeof t.h[name]).toBe('function');
    expect(Object.isFrozen(t.h)).toBe(true);
  });

  it('throws when an operation is registered twice, or one is missing', () => {
    const registry = new HandlerRegistry(() => undefined);
    registry.register('keys/list', () => []);
    expect(() => registry.register('keys/list', () => [])).toThrow(/registered twice/);
    expect(() => registry.build()).toThrow(/No handler for/);
    expect(() => registry.register('nope/nope' as never, () => [] as never)).toThrow(/not an operation/);
  });

  it('builds a fresh table per call (no shared registrations between transports)', () => {
    const again = createHandlers(t.api.core, {
      resolveExportPath: async () => null,
      pickImportFiles: async () => ({ files: [], inbox: null }),
      apiStatus: () => ({ url: null, running: false, recent: [] }),
    });
    expect(Object.keys(again)).toHaveLength(OPERATION_NAMES.length);
  });

  it('parses every input with the contract schema first: readable invalid_request', async () => {
    let e = await failure(t.h['audience/count']({ state: 'CA', filters: [], filter: [] }));
    expect(e).toBeInstanceOf(AppError);
    expect(e).toMatchObject({ code: 'invalid_request', field: 'filter' });
    expect(e.message).toMatch(/Unknown request field "filter"; the fields are state, filters/);
    e = await failure(t.h['audience/count']({ state: 'CA', filters: 'GENDER' }));
    expect(e).toMatchObject({ code: 'invalid_request', field: 'filters' });
    expect(e.message).toMatch(/"filters" must be an array of \[name, \[values...\]\] pairs/);
    e = await failure(t.h['audience/preview']({ state: 'CA', filters: [], limit: 'ten' }));
    expect(e).toMatchObject({ code: 'invalid_request', field: 'limit' });
    expect(e.message).toMatch(/"limit" must be a whole number of 0 or more/);
    e = await failure(t.h['audiences/rename']({ id: 1.5, name: 'x' }));
    expect(e).toMatchObject({ code: 'invalid_request', field: 'id' });
    e = await failure(t.h['export/start']({ state: 'CA', filters: [], format: 'xlsx' }));
    expect(e.message).toMatch(/"format" must be one of "csv", "jsonl"/);
    e = await failure(t.h['keys/list'](null));
    expect(e.code).toBe('invalid_request');
    // No input at all is fine for operations without fields.
    expect(Array.isArray(await t.h['keys/list'](undefined))).toBe(true);
  });

  it('validates audiences with the API rules (state, field names, values)', async () => {
    // As in the API, filters may be left out: the whole state.
    expect((await t.h['audience/count']({ state: 'CA' })).total).toBe((await t.h['audience/count']({ state: 'CA', filters: [] })).total);
    expect(await failure(t.h['audience/count']({ state: 'XX', filters: [] }))).toMatchObject({ code: 'invalid_request', field: 'state' });
    const e = await failure(t.h['audience/count']({ state: 'CA', filters: [['GENDR', ['F']]] }));
    expect(e.message).toMatch(/did you mean GENDER/);
    expect(await failure(t.h['audience/count']({ state: 'CA', filters: [['AGE', ['old']]] }))).toMatchObject({
      code: 'invalid_request',
      field: 'AGE',
    });
  });

  it('turns unexpected failures into internal_error and reports them to logError only', async () => {
    const errors: unknown[] = [];
    const h = createHandlers(t.api.core, {
      resolveExportPath: async () => null,
      pickImportFiles: async () => ({ files: [], inbox: null }),
      apiStatus: () => {
        throw new TypeError('secret internals at /home/x');
      },
      logError: (_op, e) => errors.push(e),
    });
    const e = await failure(h['api/status']({}));
    expect(e).toMatchObject({ code: 'internal_error' });
    expect(e.message).not.toMatch(/secret|home/);
    expect(errors).toHaveLength(1);
  });

  it('dispatch answers envelopes and refuses names that are not operations', async () => {
    expect(await dispatch(t.h, 'keys/list', {})).toMatchObject({ ok: true });
    for (const name of ['nope/nope', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])
      expect(await dispatch(t.h, name, {})).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await dispatch(t.h, 'audience/count', { state: 'ZZ', filters: [] })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', field: 'state' },
    });
  });
});
