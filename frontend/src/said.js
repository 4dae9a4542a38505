/**
 * Words the server chose for a reader (a card's title lines, origins, reasons, answers): a key of the strings
 * and the values that fill it, `{key, values}`.  They are said here in the page's strings, so `setStrings`
 * replaces them too; a `when` is an ISO time, written as the page's language writes a date and time.
 */
import { whenText } from './record.js';
import { t } from './strings.js';

/** @typedef {{ key: string, values?: Record<string, unknown> }} Said */

/** Whether `words` is a Said. @param {unknown} words @returns {words is Said} */
export function isSaid(words) {
  return !!words && typeof words === 'object' && typeof (/** @type {Said} */ (words).key) === 'string';
}

/** What `words` say; "" for none. @param {unknown} words */
export function saidText(words) {
  if (!isSaid(words)) return '';
  const values = { ...(words.values ?? {}) };
  if (typeof values.when === 'string') values.when = whenText(values.when);
  return t(words.key, values);
}
