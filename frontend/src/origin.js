/** Where an argument's value came from, said in words. */
import { t } from './strings.js';

const KEYS = {
  typed: 'origin_typed',
  reply: 'origin_reply',
  context: 'origin_context',
  computed: 'origin_computed',
  model: 'origin_model',
  result: 'origin_result',
  agent: 'origin_agent',
};

/**
 * The strings key for an origin (`result:<step>` is `origin_result`), or undefined for one the table lacks.
 * @param {string} origin
 */
export function originKey(origin) {
  const kind = String(origin ?? '').split(':')[0];
  return Object.hasOwn(KEYS, kind) ? KEYS[kind] : undefined;
}

/**
 * The words for an origin; one the table lacks is shown as given.
 * @param {string} origin
 */
export function originText(origin) {
  const key = originKey(origin);
  return key ? t(key) : String(origin ?? '');
}
