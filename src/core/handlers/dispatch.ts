// What a transport does with one call: look the operation up by name (unknown names are refused, and
// only the contract's own names count, never inherited properties), run it, and answer an Envelope.
import type { Envelope } from '../../shared/contract';
import { AppError, toErrorBody } from '../../shared/errors';
import { isOperationName } from './registry';
import type { HandlerTable } from './types';

export async function dispatch(table: HandlerTable, name: string, input: unknown): Promise<Envelope<unknown>> {
  try {
    if (!isOperationName(name)) throw new AppError('not_found', `There is no operation ${JSON.stringify(name.slice(0, 60))}.`);
    return { ok: true, value: await table[name](input) };
  } catch (e) {
    return { ok: false, error: toErrorBody(e).error };
  }
}
