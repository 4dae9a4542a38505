/**
 * What the element tests share: reading a component's shadow DOM, mounting one as a page would, and what axe finds
 * (each test file loads axe into the window itself).
 */
import { window } from './dom.js';
import { settle } from './fakes.js';

export const $ = (root, selector) => root.shadowRoot.querySelector(selector);
export const $$ = (root, selector) => [...root.shadowRoot.querySelectorAll(selector)];
export const words = (node) => node.textContent.replace(/\s+/g, ' ').trim();

export async function mount(tag, props = {}, attributes = {}) {
  const element = document.createElement(tag);
  Object.assign(element, props);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  document.body.append(element);
  await settle(element);
  return element;
}

export async function violations() {
  const result = await window.axe.run(document, {
    runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'],
    rules: { 'color-contrast': { enabled: false } },
  });
  return Array.from(result.violations, (v) => `${v.id}: ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
