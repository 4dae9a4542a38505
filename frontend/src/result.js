/**
 * A value a step gave (or an argument came from), short enough for a chat line, with the whole
 * of it as JSON one click away: a person compares a charge with the order it came from without
 * reading a payload.
 */
import { html } from 'lit';

const SHORT = 120;

/**
 * One line for a value: text as it is, an object as its plain fields (`total: 40.00, status: unpaid`),
 * a list as its items; cut at 120 characters.
 * @param {unknown} value
 */
export function shortText(value) {
  const line = flat(value);
  return line.length > SHORT ? `${line.slice(0, SHORT - 1)}…` : line;
}

/** @param {unknown} value @returns {string} */
function flat(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((item) => (item && typeof item === 'object' ? flat(item) : String(item))).join('; ');
  if (typeof value === 'object') {
    return Object.entries(value)
      .filter(([, field]) => field === null || typeof field !== 'object')
      .map(([name, field]) => `${name}: ${field}`)
      .join(', ');
  }
  return String(value);
}

/**
 * A disclosure: the short line as its summary, the whole value as JSON inside.
 * @param {unknown} value
 * @param {unknown} [label] what comes before the short line (the tool's name, say)
 */
export function resultDisclosure(value, label = '') {
  return html`<details class="result">
    <summary>${label ? html`<span class="label">${label}</span> ` : ''}<span class="short">${shortText(value) || JSON.stringify(value)}</span></summary>
    <pre class="whole">${JSON.stringify(value, null, 2)}</pre>
  </details>`;
}
