/**
 * Signing a chat or an inbox in with the access token an OpenID Connect provider's redirect
 * hands the page in its fragment (`#access_token=...`).  A fragment is never sent
 * to the server, so the token stays out of its logs; it is kept for the tab in
 * sessionStorage, so a reload stays signed in, and taken out of the address bar,
 * so it is not bookmarked, shared or kept in the history.
 */
import { recall, remember } from './storage.js';

const TOKEN_KEY = 'stalwart-access-token';
/** The opt-in of a page that has no script of its own: `<stalwart-chat data-signin="fragment">`, or an inbox so marked. */
const SIGNIN_SELECTOR = 'stalwart-chat[data-signin="fragment"], stalwart-inbox[data-signin="fragment"]';

/**
 * Sign `chat` (a chat, an inbox, anything with a `fetcher`) in: the token from the fragment (kept,
 * and the fragment removed), or the one kept earlier in this tab.  With a token, `chat.fetcher`
 * sends it as `Authorization: Bearer` on every request; with none, the chat is left as it was.
 * @param {{ fetcher: typeof fetch }} chat
 * @returns {string} the token in use; "" for none
 */
export function signInFromFragment(chat) {
  const token = takeFromFragment() || recall('sessionStorage', TOKEN_KEY) || '';
  if (token) chat.fetcher = withBearer(chat.fetcher, token);
  return token;
}

/** Sign in every chat and inbox in `root` that opts in with `data-signin="fragment"`. @param {ParentNode} root */
export function signInMarked(root) {
  /** @type {NodeListOf<Element & { fetcher: typeof fetch }>} */
  const marked = root.querySelectorAll(SIGNIN_SELECTOR);
  for (const element of marked) signInFromFragment(element);
}

/**
 * The access token in the address's fragment, kept in sessionStorage; the whole
 * fragment (the provider's answer, an id_token with it) leaves the address bar.
 */
function takeFromFragment() {
  const token = new URLSearchParams(location.hash.slice(1)).get('access_token');
  if (!token) return '';
  remember('sessionStorage', TOKEN_KEY, token);
  history.replaceState(history.state, '', location.pathname + location.search);
  return token;
}

/**
 * `fetcher`, with `Authorization: Bearer <token>` on every request.
 * @param {typeof fetch} fetcher
 * @param {string} token
 * @returns {typeof fetch}
 */
function withBearer(fetcher, token) {
  return (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetcher.call(globalThis, url, { ...init, headers });
  };
}
