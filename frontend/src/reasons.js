/**
 * Why a call waits, said in words.  The check gives codes (`write`, `missing: amount`,
 * `tainted_call: untrusted:read_messages`); each is a sentence from the strings, keyed
 * `reason_<code>`, and a code the table lacks is shown as given.
 */
import { strings, t } from './strings.js';

/**
 * The sentence for one reason code.
 * @param {string} code
 * @param {(name: string) => string} [labelOf] a person's name for an argument
 */
export function reasonText(code, labelOf = (name) => name) {
  const text = String(code ?? '');
  const [name, ...rest] = text.split(':');
  const key = `reason_${name.trim()}`;
  if (!Object.hasOwn(strings, key)) return text;
  const detail = rest.join(':').trim();
  return t(key, {
    arg: labelOf(detail),
    tool: detail.replace(/^untrusted:/, ''),
    rule: detail,
    language: languageName(detail),
    error: detail,
    cause: detail,
  });
}

/** "English" for `en`, in the page's language; the code itself where the browser cannot name it. @param {string} code */
function languageName(code) {
  try {
    const page = globalThis.document?.documentElement?.lang || undefined;
    return new Intl.DisplayNames(page ? [page] : undefined, { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}
