import { Client } from './client.js';
import { StalwartElement } from './element.js';

/**
 * What an element that reads from the service shares (the inbox, the history): a read afresh, with a new client,
 * whenever a property the read depends on changes (`query`), and again when the element is put back in the page.
 * Each read afresh and each removal from the page bumps `epoch`, so an answer that arrives after either does not count.
 */
export class ReadingElement extends StalwartElement {
  /**
   * The properties the element's read depends on.
   * @internal
   * @returns {string[]}
   */
  static get query() {
    return [];
  }

  constructor() {
    super();
    /** @internal @type {Client | null} */
    this.client = null;
    /** @internal bumped by each read afresh and on disconnection, so an older answer does not count */
    this.epoch = 0;
  }

  connectedCallback() {
    super.connectedCallback();
    if (this.hasUpdated) this.refresh();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.epoch += 1;
  }

  /** @param {Map<string, unknown>} changed */
  willUpdate(changed) {
    const query = /** @type {typeof ReadingElement} */ (this.constructor).query;
    if (!query.some((name) => changed.has(name))) return;
    this.client = new Client(this.base, this.fetcher);
    this.forget();
    if (this.isConnected) this.refresh();
  }

  /**
   * Drop what was read, before a read afresh.
   * @internal
   */
  forget() {}

  /** Read again, in place of what is shown. */
  async refresh() {}
}
