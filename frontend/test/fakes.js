// Stand-ins for the backend: a fetch that answers from a script of routes,
// and an EventSource the test drives by hand.

/**
 * A fetch answering `routes["METHOD /path"]` (a body, or a function of the request giving one).
 * `session` is handed out in Stalwart-Session; `ticket` (a string, or a function of the request
 * giving one) in Stalwart-Stream-Ticket, on 2xx answers, as an authenticated server does.
 */
export function fakeFetch(routes, { session, ticket } = {}) {
  const calls = [];
  async function fetcher(url, init = {}) {
    const path = new URL(url, 'http://localhost:8700').pathname;
    const call = { url, path, method: init.method ?? 'GET', headers: new Headers(init.headers), body: init.body ? JSON.parse(init.body) : undefined };
    calls.push(call);
    let answer = routes[`${call.method} ${path}`];
    if (typeof answer === 'function') answer = await answer(call);
    if (answer === undefined) answer = { status: 404, body: { error: 'not_found', message: `no ${call.method} ${path}` } };
    const { status = 200, body = answer } = answer.status ? answer : { body: answer };
    // Like API Gateway: JSON without a JSON content type.
    const headers = new Headers({ 'Content-Type': 'text/plain' });
    if (session) headers.set('Stalwart-Session', session);
    const given = typeof ticket === 'function' ? ticket(call) : ticket;
    if (given && status < 300) headers.set('Stalwart-Stream-Ticket', given);
    return new Response(JSON.stringify(body), { status, headers });
  }
  fetcher.calls = calls;
  return fetcher;
}

export class FakeEventSource {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;
  /** @type {FakeEventSource[]} */
  static opened = [];

  constructor(url) {
    this.url = url;
    this.readyState = FakeEventSource.CONNECTING;
    this.listeners = {};
    this.closed = false;
    FakeEventSource.opened.push(this);
  }

  addEventListener(type, listener) {
    (this.listeners[type] ??= []).push(listener);
  }

  close() {
    this.closed = true;
    this.readyState = FakeEventSource.CLOSED;
  }

  dispatch(type, event = {}) {
    for (const listener of this.listeners[type] ?? []) listener({ type, ...event });
  }

  open() {
    this.readyState = FakeEventSource.OPEN;
    this.dispatch('open');
  }

  emit(type, body, id) {
    this.dispatch(type, { data: JSON.stringify(body), lastEventId: String(id) });
  }

  /** An error: the browser retrying (CONNECTING) or giving up (CLOSED). */
  fail(readyState = FakeEventSource.CLOSED) {
    this.readyState = readyState;
    this.dispatch('error');
  }
}

/** Let pending promises, fetches and Lit updates run. */
export async function settle(element) {
  for (let i = 0; i < 10; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    if (element) await element.updateComplete;
  }
}
