// A DOM for the elements under node:test: happy-dom's window, its globals set
// before the built bundle is imported.  Not a browser: layout, focus rings and
// contrast are the browser tests' to check; this is for what the elements render and send.
import { Window } from 'happy-dom';

export const window = new Window({ url: 'http://localhost:8700/' });
const names = [
  'document', 'customElements', 'HTMLElement', 'Node', 'NodeFilter', 'Element', 'ShadowRoot', 'Document',
  'DocumentFragment', 'Event', 'CustomEvent', 'KeyboardEvent', 'MouseEvent', 'SubmitEvent', 'InputEvent',
  'MutationObserver', 'CSSStyleSheet', 'sessionStorage', 'localStorage', 'requestAnimationFrame', 'HTMLFormElement',
  'HTMLInputElement', 'HTMLTextAreaElement', 'HTMLButtonElement', 'CSS', 'location', 'history',
];
for (const name of names) {
  Object.defineProperty(globalThis, name, { value: window[name], configurable: true, writable: true });
}
globalThis.window = globalThis;
