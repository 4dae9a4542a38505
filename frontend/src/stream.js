/**
 * A thread's step stream, kept open.
 *
 * An EventSource cannot send headers, so the stream is opened with the thread's
 * current ticket in `?ticket=`.  The browser's EventSource reconnects by itself
 * with Last-Event-ID while it can; when it gives up (readyState CLOSED after an
 * error, such as a 401 for a ticket that expired) this gets a fresh ticket and
 * opens again, with backoff, 1 s doubling to 30 s.  The last id seen is kept
 * per thread in sessionStorage and sent as `?last_event_id=` by every
 * EventSource this opens, so a reloaded page carries on where it was.
 */
import { recall, remember } from './storage.js';

export const EVENT_TYPES = ['turn', 'step', 'pause', 'answer', 'run', 'rollback', 'recovered'];
export const FIRST_DELAY = 1000;
export const LAST_DELAY = 30000;
const CLOSED = 2;

/** @param {string} thread */
export const cursorKey = (thread) => `stalwart-last-event-id:${thread}`;

/**
 * @typedef {object} StreamOptions
 * @property {string} url the stream route, without a query
 * @property {string} thread
 * @property {() => string} ticket the thread's current stream ticket; "" for none
 * @property {() => Promise<unknown>} renew gets a fresh ticket, before opening again after a failure
 * @property {(url: string) => EventSource} open
 * @property {(type: string, body: any, id: string) => void} onEvent
 * @property {() => void} onOpen each (re)connection
 * @property {(reconnecting: boolean) => void} onReconnecting
 */

export class Stream {
  /** @param {StreamOptions} options */
  constructor(options) {
    this.options = options;
    this.delay = FIRST_DELAY;
    /** @type {EventSource | null} */
    this.source = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.failures = 0;
    this.stopped = false;
  }

  get last() {
    return recall('sessionStorage', cursorKey(this.options.thread)) ?? '';
  }

  start() {
    const { url, open } = this.options;
    const ticket = this.options.ticket();
    const last = this.last;
    const query = new URLSearchParams();
    if (ticket) query.set('ticket', ticket);
    if (last) query.set('last_event_id', last);
    const search = query.toString();
    const source = open(search ? `${url}?${search}` : url);
    this.source = source;
    source.addEventListener('open', () => this.opened());
    source.addEventListener('error', () => this.failed(source));
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (event) => this.received(type, /** @type {MessageEvent} */ (event)));
    }
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.source?.close();
    this.source = null;
  }

  /** @private */
  opened() {
    this.delay = FIRST_DELAY;
    this.failures = 0;
    this.options.onReconnecting(false);
    this.options.onOpen();
  }

  /** @private @param {EventSource} source */
  failed(source) {
    if (this.stopped || source !== this.source) return;
    this.failures += 1;
    if (source.readyState === CLOSED) {
      source.close();
      this.options.onReconnecting(true);
      this.retry();
    } else if (this.failures > 1) {
      // The browser is retrying, and its last retry failed too: not a stream that merely ended.
      this.options.onReconnecting(true);
    }
  }

  /** After the backoff, a fresh ticket and a new EventSource; without a ticket, another wait. @private */
  retry() {
    this.timer = setTimeout(async () => {
      try {
        await this.options.renew();
      } catch {
        if (!this.stopped) this.retry();
        return;
      }
      if (!this.stopped) this.start();
    }, this.delay);
    this.delay = Math.min(this.delay * 2, LAST_DELAY);
  }

  /** @private @param {string} type @param {MessageEvent} event */
  received(type, event) {
    const id = event.lastEventId ?? '';
    const last = this.last;
    if (/^\d+$/.test(id) && /^\d+$/.test(last) && Number(id) <= Number(last)) return;
    if (id) remember('sessionStorage', cursorKey(this.options.thread), id);
    let body = null;
    try {
      body = JSON.parse(event.data);
    } catch {
      return;
    }
    this.options.onEvent(type, body, id);
  }
}
