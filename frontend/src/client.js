/**
 * The backend's routes under `base`, and nothing else, every request made by `fetcher`:
 * a thread's routes, the inbox of what waits across threads, and what the service says of its agent.
 *
 * The session the server hands out in `Stalwart-Session` is remembered for the
 * tab and sent back on every request.  The stream ticket it hands out in
 * `Stalwart-Stream-Ticket` is kept per thread, in memory only: it opens that
 * thread's stream for ten minutes, and a fresh one comes with every call.
 * Bodies are read as text and parsed as JSON whatever their content type says.
 */
import { recall, remember } from './storage.js';

export const SESSION_HEADER = 'Stalwart-Session';
export const SESSION_KEY = 'stalwart-session';
export const TICKET_HEADER = 'Stalwart-Stream-Ticket';

/** An answer other than 2xx: `code` is the backend's `error`, `body` the whole JSON. */
export class ApiError extends Error {
  /** @param {number} status @param {any} body */
  constructor(status, body) {
    super(body?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error ?? '';
    this.body = body;
  }
}

export class Client {
  /**
   * @param {string} base where the routes are; "" for the page's own origin
   * @param {typeof fetch} fetcher
   */
  constructor(base, fetcher) {
    this.base = String(base ?? '').replace(/\/+$/, '');
    this.fetcher = fetcher;
    /** @private @type {Map<string, string>} the latest stream ticket of each thread */
    this.tickets = new Map();
  }

  /** @param {string} thread @param {string} [route] */
  url(thread, route = '') {
    return `${this.base}/threads/${encodeURIComponent(thread)}${route}`;
  }

  /** The latest stream ticket the server handed out for the thread; "" for none. @param {string} thread */
  ticket(thread) {
    return this.tickets.get(thread) ?? '';
  }

  /** A turn. @param {string} thread @param {string} text */
  send(thread, text) {
    return this.request('POST', thread, '/messages', { text });
  }

  /** What the service says of its agent: `{agent, description?, examples?}`. */
  config() {
    return this.fetchJSON('GET', `${this.base}/config.json`);
  }

  /** What waits in the thread. @param {string} thread */
  interrupts(thread) {
    return this.request('GET', thread, '/interrupts');
  }

  /**
   * The thread's decision record, oldest first: `{thread, intact, decisions}`, `intact` false where the service found
   * the record changed since it was written.
   * @param {string} thread
   */
  decisions(thread) {
    return this.request('GET', thread, '/decisions');
  }

  /**
   * One page of what waits across threads, newest first; a filter or cursor left empty is not sent.
   * @param {{ kind?: string, tool?: string, limit?: number, cursor?: string }} [query]
   */
  inbox(query = {}) {
    const given = Object.entries(query).filter(([, value]) => value !== undefined && value !== null && value !== '');
    const search = new URLSearchParams(given.map(([name, value]) => [name, String(value)])).toString();
    return this.fetchJSON('GET', `${this.base}/interrupts${search ? `?${search}` : ''}`);
  }

  /**
   * A person's decision on one pause.
   * @param {string} thread
   * @param {{ interrupt_id: string, decision: string, token: string, value?: string, edits?: Record<string, unknown> }} body
   */
  resume(thread, body) {
    return this.request('POST', thread, '/resume', body);
  }

  /**
   * Several decisions at once, each on its own pause, each taken or refused alone: `{answers: [...]}`, what became
   * of each in the order sent (`status` 200 with its `steps`, or the refusal's `status`, `error` and `message`).
   * @param {Array<{ interrupt_id: string, decision: string, token: string, value?: string, edits?: Record<string, unknown> }>} answers
   */
  answers(answers) {
    return this.fetchJSON('POST', `${this.base}/interrupts/answers`, { answers });
  }

  /** @param {string} thread @param {string} message @param {'up' | 'down'} thumb */
  feedback(thread, message, thumb) {
    return this.request('POST', thread, '/feedback', { message, thumb });
  }

  /** @private @param {string} method @param {string} thread @param {string} route @param {unknown} [body] */
  async request(method, thread, route, body) {
    return this.fetchJSON(method, this.url(thread, route), body, thread);
  }

  /**
   * A request's JSON answer; a ticket handed out is kept for `thread`, when the request is one of a thread's.
   * @private @param {string} method @param {string} url @param {unknown} [body] @param {string} [thread]
   */
  async fetchJSON(method, url, body, thread) {
    /** @type {Record<string, string>} */
    const headers = { Accept: 'application/json' };
    const session = recall('sessionStorage', SESSION_KEY);
    if (session) headers[SESSION_HEADER] = session;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await this.fetcher.call(globalThis, url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
    const given = response.headers?.get(SESSION_HEADER);
    if (given) remember('sessionStorage', SESSION_KEY, given);
    const ticket = response.headers?.get(TICKET_HEADER);
    if (ticket && thread !== undefined) this.tickets.set(thread, ticket);
    const data = parse(await response.text());
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }
}

/** @param {string} text */
function parse(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
