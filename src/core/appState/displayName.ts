// Names people give things the app keeps (saved audiences, suppression lists): one rule, so a name
// that is fine for one is fine for the other.
import { AppError } from '../../shared/errors';

export const NAME_MAX = 100;

/** Trimmed, 1 to 100 characters, no control characters; `what` names the thing in the message ("An audience name"). */
export function displayName(name: string, what: string): string {
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex
  if (trimmed.length === 0 || trimmed.length > NAME_MAX || /[\u0000-\u001f\u007f]/.test(trimmed))
    throw new AppError('invalid_request', `${what} is 1 to ${NAME_MAX} characters without line breaks.`, 'name');
  return trimmed;
}
