import { html } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { ApiError, Client } from '../../client.js';
import { StalwartElement } from '../../element.js';
import { exported } from '../../parts.js';
import { recordOf, recordText, whenText } from '../../record.js';
import { resultDisclosure } from '../../result.js';
import { saidText } from '../../said.js';
import { recall, remember } from '../../storage.js';
import { Stream } from '../../stream.js';
import { t } from '../../strings.js';
import styles from './stalwart-chat.styles.js';

/** Where the thread id lives when the page gives none. */
export const THREAD_KEY = 'stalwart-thread';
const KEPT = 200;
/** The element's own reactive state, kept out of its public surface (and its manifest). */
const STATE = Object.fromEntries(
  ['entries', 'waiting', 'trace', 'text', 'sending', 'deciding', 'reconnecting', 'error', 'about', 'decisionsOpen'].map((name) => [name, { state: true }]),
);
/** Stream events after which what waits may have changed. */
const CHANGES_WAITING = new Set(['pause', 'answer', 'run', 'rollback', 'recovered']);

/**
 * @typedef {object} Entry one line of the log
 * @property {number} n its place in the log
 * @property {'turn' | 'reply' | 'refusal' | 'rollback' | 'record'} kind
 * @property {string} [text] the person's turn, or the reply's words (without its refusals, shown as their own)
 * @property {Array<{tool: string, result: unknown}>} [results] what the reply's steps gave
 * @property {string} [id] the reply's id, for a thumb
 * @property {'up' | 'down'} [thumb] the thumb given
 * @property {unknown[]} [sources] the reply's sources, where it carries any
 * @property {string} [sentence] a refusal's sentence
 * @property {string} [rule] a refusal's rule
 * @property {Record<string, any>} [report] a rollback report
 * @property {import('../../record.js').DecisionRecord} [record] a decision taken
 * @property {string} [event] the id of the answer event a record was made from; "" until it arrives
 */

/**
 * @summary The conversation, and whatever waits for a decision.
 * @tag stalwart-chat
 *
 * @slot header - Your own content above the conversation.
 * @slot footer - Your own content below it.
 *
 * @csspart log - The conversation: the person's turns, the replies with what their steps gave, the decisions taken,
 * refusals, rollbacks and what waits; before the first turn, the agent's name, description and examples.
 * @csspart thumbs - A reply's two rating buttons (with the `thumbs` attribute).
 * @csspart thumbs-notice - What a rating keeps (with the `thumbs` attribute).
 * @csspart status - Sending, waiting, reconnecting or an error, as a live status.
 * @csspart steps - The disclosure holding the thread's step trace.
 * @csspart decisions - The disclosure holding the thread's decision history (`<stalwart-history>`, whose parts it
 * exports), read only once it is opened and again on each decision while it is open.
 * @csspart composer - The message box and its Send button, disabled while a run waits for a decision.
 * @csspart citations - The region listing a reply's sources, hidden while no reply carries any.
 * @csspart sources - The list of sources inside it.
 */
export class StalwartChat extends StalwartElement {
  static get styles() {
    return styles;
  }

  static get properties() {
    return {
      /** Where the backend's routes are; "" (the default) for the page's own origin. */
      base: { type: String },
      /** The conversation's id; without one, an id kept in localStorage["stalwart-thread"]. */
      thread: { type: String },
      /** Show a Helpful / Not helpful pair under each reply, and what a rating keeps. */
      thumbs: { type: Boolean },
      /**
       * Opens the step stream: `(url) => EventSource`.
       * @type {(url: string) => EventSource}
       */
      eventSource: { attribute: false },
      /**
       * Makes every request: `fetch` or anything that behaves like it, such as one that adds `Authorization: Bearer`.
       * @type {typeof fetch}
       */
      fetcher: { attribute: false },
      ...STATE,
    };
  }

  constructor() {
    super();
    this.base = '';
    this.thread = '';
    this.thumbs = false;
    /** @type {(url: string) => EventSource} */
    this.eventSource = (url) => new EventSource(url);
    /** @type {typeof fetch} */
    this.fetcher = globalThis.fetch;
    Object.assign(this, { entries: [], waiting: [], trace: [], text: '', sending: false, deciding: 0, reconnecting: false, error: '', about: null });
    /** @internal whether the decision history is open (it is read only once it is) */
    this.decisionsOpen = false;
    /** @internal @type {Link | null} */
    this.link = null;
    this.addEventListener('stalwart-decision', (event) => this.decide(/** @type {CustomEvent} */ (event)));
  }

  connectedCallback() {
    super.connectedCallback();
    if (this.hasUpdated) this.connect();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.disconnect();
  }

  /** @param {Map<string, unknown>} changed */
  willUpdate(changed) {
    if (['base', 'thread', 'eventSource', 'fetcher'].some((name) => changed.has(name))) this.connect();
  }

  /** @param {Map<string, unknown>} changed */
  updated(changed) {
    if (changed.has('entries') || changed.has('trace')) this.keepView();
    if (changed.has('entries') || changed.has('waiting')) this.scrollLog();
  }

  render() {
    const theme = ifDefined(this.theme || undefined);
    const sources = this.sources();
    const waits = this.waiting.length > 0;
    return html`<slot name="header"></slot>
      <div part="log" role="log" aria-live="polite" aria-label=${t('conversation')} tabindex="0">
        ${this.entries.length || waits ? '' : this.renderAbout()}
        ${this.entries.map((entry) => this.renderEntry(entry, theme))}
        ${this.waiting.map((pause) => html`<stalwart-confirm exportparts=${exported('stalwart-confirm')} .interrupt=${pause} theme=${theme}></stalwart-confirm>`)}
      </div>
      <section part="citations" aria-label=${t('sources')} ?hidden=${!sources.length}>
        <ul part="sources">
          ${sources.map((source) => html`<li>${sourceText(source)}</li>`)}
        </ul>
      </section>
      <details part="steps">
        <summary>${t('traceTitle')}</summary>
        <stalwart-trace exportparts=${exported('stalwart-trace')} .events=${this.trace} theme=${theme}></stalwart-trace>
      </details>
      <details part="decisions" @toggle=${this.toggleDecisions}>
        <summary>${t('historyTitle')}</summary>
        ${this.decisionsOpen && this.link
          ? html`<stalwart-history
              exportparts=${exported('stalwart-history')}
              base=${this.base}
              thread=${this.link.thread}
              .fetcher=${this.fetcher}
              theme=${theme}
            ></stalwart-history>`
          : ''}
      </details>
      <div part="status" role="status" class=${this.error ? 'bad' : ''}>${this.statusText()}</div>
      <form part="composer" @submit=${this.submit}>
        <textarea
          name="text"
          rows="2"
          aria-label=${t('placeholder')}
          placeholder=${t('placeholder')}
          .value=${this.text}
          ?readonly=${this.sending}
          ?disabled=${waits}
          @input=${this.typed}
          @keydown=${this.keydown}
        ></textarea>
        <button type="submit" ?disabled=${this.sending || waits}>${t('send')}</button>
      </form>
      <p part="thumbs-notice" class="muted" ?hidden=${!this.thumbs}>${t('thumbsNotice')}</p>
      <slot name="footer"></slot>`;
  }

  /** @private @param {Entry} entry @param {unknown} theme */
  renderEntry(entry, theme) {
    switch (entry.kind) {
      case 'turn':
        return html`<div class="entry turn" data-entry=${entry.n} tabindex="-1"><p class="text">${entry.text}</p></div>`;
      case 'reply':
        return html`<div class="entry reply" data-entry=${entry.n} data-id=${ifDefined(entry.id)} tabindex="-1">
          ${entry.text ? html`<p class="text">${entry.text}</p>` : ''} ${renderResults(entry.results ?? [])}
          ${this.thumbs && entry.id ? this.renderThumbs(entry) : ''}
        </div>`;
      case 'record':
        return renderRecord(entry);
      case 'refusal':
        return html`<stalwart-decision
          exportparts=${exported('stalwart-decision')}
          class="entry"
          data-entry=${entry.n}
          tabindex="-1"
          rule=${entry.rule ?? ''}
          sentence=${entry.sentence ?? ''}
          theme=${theme}
        ></stalwart-decision>`;
      default:
        return html`<stalwart-rollback exportparts=${exported('stalwart-rollback')} class="entry" data-entry=${entry.n} tabindex="-1" .report=${entry.report} theme=${theme}></stalwart-rollback>`;
    }
  }

  /** What the agent is and what to type, before the first turn; nothing where the service does not say. @private */
  renderAbout() {
    const about = this.about;
    if (!about?.agent) return '';
    const examples = Array.isArray(about.examples) ? about.examples.filter((example) => typeof example === 'string') : [];
    return html`<section class="about" aria-labelledby="agent">
      <h2 id="agent">${about.agent}</h2>
      ${about.description ? html`<p class="description">${about.description}</p>` : ''}
      ${examples.length
        ? html`<h3 id="examples">${t('examplesTitle')}</h3>
            <ul class="examples" aria-labelledby="examples">
              ${examples.map((example) => html`<li><button type="button" class="quiet example" @click=${() => this.suggest(example)}>${example}</button></li>`)}
            </ul>`
        : ''}
    </section>`;
  }

  /** The decision history is drawn (and read) while its disclosure is open. @private @param {Event} event */
  toggleDecisions(event) {
    this.decisionsOpen = /** @type {HTMLDetailsElement} */ (event.currentTarget).open;
  }

  /** Put an example in the composer, for the person to send or change. @private @param {string} example */
  async suggest(example) {
    this.text = example;
    await this.updateComplete;
    this.renderRoot.querySelector('textarea')?.focus();
  }

  /** @private @param {Entry} entry */
  renderThumbs(entry) {
    return html`<div part="thumbs">
      <button type="button" class="quiet" data-thumb="up" aria-pressed=${entry.thumb === 'up' ? 'true' : 'false'} @click=${() => this.rate(entry, 'up')}>${t('thumbUp')}</button>
      <button type="button" class="quiet" data-thumb="down" aria-pressed=${entry.thumb === 'down' ? 'true' : 'false'} @click=${() => this.rate(entry, 'down')}>${t('thumbDown')}</button>
    </div>`;
  }

  /** @private */
  statusText() {
    if (this.error) return t('error', { message: this.error });
    if (this.sending || this.deciding) return t('sending');
    if (this.reconnecting) return t('reconnecting');
    if (!this.waiting.length) return '';
    // What waits is someone else's to decide ("Waits for finance to decide"), or the reader's.
    const others = this.waiting.map((pause) => saidText(pause.card?.waits_for));
    return others.every(Boolean) ? others[0] : t('waiting');
  }

  /** The latest reply's sources. @private */
  sources() {
    const reply = [...this.entries].reverse().find((entry) => entry.kind === 'reply');
    return Array.isArray(reply?.sources) ? reply.sources : [];
  }

  /** Open the thread: its kept view and what waits; the step stream once the thread exists. @private */
  connect() {
    this.disconnect();
    if (!this.isConnected) return;
    const kept = this.thread || recall('localStorage', THREAD_KEY);
    const thread = kept || uuid();
    const client = new Client(this.base, this.fetcher);
    /** @type {Link} */
    const link = { thread, client, stream: null, epoch: 0, reading: false, again: false, unstarted: !kept };
    this.link = link;
    const view = readView(thread);
    this.entries = view.entries;
    this.trace = view.trace;
    this.waiting = [];
    this.error = '';
    this.reconnecting = false;
    this.sending = false;
    this.deciding = 0;
    this.open(link);
  }

  /**
   * Read what waits once there can be something to read, so a load makes no request the browser reports as failed:
   * not in a thread this element has just made up (nobody has started it: it would answer 404), and not before the
   * page has given a `fetcher` where the service says its thread routes need a sign-in (it would answer 401). Setting
   * `fetcher` opens the thread again, with it.
   * @private @param {Link} link
   */
  async open(link) {
    await this.describe(link);
    const waitsForSignIn = this.about?.sign_in === true && this.fetcher === globalThis.fetch;
    if (link === this.link && !link.unstarted && !waitsForSignIn) this.refresh();
  }

  /** Read what the service says of its agent, for the empty conversation; a service that says nothing shows nothing. @private @param {Link} link */
  async describe(link) {
    try {
      const about = await link.client.config();
      if (link === this.link) this.about = about && typeof about === 'object' ? about : null;
    } catch {
      if (link === this.link) this.about = null;
    }
  }

  /**
   * The thread exists (a turn or a decision was taken, or what waits was read): keep its step stream open.
   * Not before, since the stream of a thread nobody has started answers 404.
   * @private @param {Link} link
   */
  follow(link) {
    if (link !== this.link || link.stream) return;
    const { client, thread } = link;
    if (link.unstarted) {
      // Kept from its first turn on, so a reload (or a new tab) returns to it.
      remember('localStorage', THREAD_KEY, thread);
      link.unstarted = false;
    }
    link.stream = new Stream({
      url: client.url(thread, '/stream'),
      thread,
      ticket: () => client.ticket(thread),
      renew: () => client.interrupts(thread),
      open: (url) => this.eventSource(url),
      onEvent: (type, body, id) => link === this.link && this.streamed(type, body, id),
      onOpen: () => link === this.link && this.refresh(),
      onReconnecting: (on) => {
        if (link === this.link) this.reconnecting = on;
      },
    });
    try {
      link.stream.start();
    } catch (err) {
      this.fail(err);
    }
  }

  /** @private */
  disconnect() {
    this.link?.stream?.stop();
    this.link = null;
  }

  /** @private @param {string} type @param {Record<string, any>} body @param {string} id */
  streamed(type, body, id) {
    if (type === 'step') this.trace = [...this.trace, body].slice(-KEPT);
    if (type === 'answer') {
      this.recorded(body, id);
      /** @type {import('../stalwart-history/stalwart-history.js').StalwartHistory | null} */ (this.renderRoot.querySelector('stalwart-history'))?.refresh();
    }
    if (CHANGES_WAITING.has(type)) this.refresh();
  }

  /**
   * The record of an answer event: it completes the record this page made of its own decision (with who and
   * when), or is added as one of its own (an answer from another tab, the inbox or a link).
   * @private @param {Record<string, any>} event @param {string} id
   */
  recorded(event, id) {
    const record = recordOf(event);
    if (!record || (id && this.entries.some((entry) => entry.kind === 'record' && entry.event === id))) return;
    const mine = this.entries.find(
      (entry) => entry.kind === 'record' && !entry.event && entry.record?.pause === record.pause && entry.record?.decision === record.decision,
    );
    if (mine) this.entries = this.entries.map((entry) => (entry === mine ? { ...entry, record, event: id || 'seen' } : entry));
    else this.record([{ kind: 'record', record, event: id || 'seen' }], this.link?.edited?.pause === record.pause ? this.link.edited.before : undefined);
  }

  /**
   * Read what waits.  One read at a time; a read asked for meanwhile runs after it,
   * and none runs (or counts) while a decision is on its way, whose answer says what waits.
   * @private
   */
  async refresh() {
    const link = this.link;
    if (!link) return;
    if (link.reading || this.deciding) {
      link.again = true;
      return;
    }
    link.reading = true;
    try {
      do {
        link.again = false;
        const epoch = link.epoch;
        try {
          const body = await link.client.interrupts(link.thread);
          if (link === this.link && epoch === link.epoch) this.waiting = same(this.waiting, body?.waiting);
          this.follow(link);
        } catch (err) {
          // A thread nobody has started answers 404 (as another person's does): nothing waits in it yet.
          if (link === this.link && !(err instanceof ApiError && err.code === 'not_found')) this.fail(err);
        }
      } while (link.again && link === this.link && !this.deciding);
    } finally {
      link.reading = false;
    }
  }

  /** @private @param {SubmitEvent} event */
  submit(event) {
    event.preventDefault();
    this.send();
  }

  /** @private @param {KeyboardEvent} event */
  keydown(event) {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.send();
    }
  }

  /** @private @param {InputEvent} event */
  typed(event) {
    this.text = /** @type {HTMLTextAreaElement} */ (event.target).value;
  }

  /** Send the composer's text as a turn. @private */
  async send() {
    const link = this.link;
    const text = this.text.trim();
    if (!link || !text || this.sending || this.waiting.length) return;
    const refocus = this.renderRoot.activeElement?.matches('button[type=submit]');
    this.sending = true;
    this.error = '';
    try {
      const answer = await link.client.send(link.thread, text);
      if (link !== this.link) return;
      this.text = '';
      this.record([{ kind: 'turn', text }]);
      this.apply(answer);
      this.follow(link);
    } catch (err) {
      if (link === this.link) this.fail(err);
    } finally {
      if (link === this.link) this.sending = false;
    }
    if (refocus) {
      await this.updateComplete;
      this.renderRoot.querySelector('textarea')?.focus();
    }
  }

  /** Send a person's decision, then move focus to its outcome. @private @param {CustomEvent} event */
  async decide(event) {
    const { interrupt, decision, value, edits } = event.detail ?? {};
    const link = this.link;
    if (!link || !interrupt?.id || !decision) return;
    this.deciding += 1;
    link.epoch += 1;
    this.error = '';
    /** @type {number | undefined} */
    let outcome;
    try {
      /** @type {{interrupt_id: string, decision: string, token: string, value?: string, edits?: Record<string, unknown>}} */
      const body = { interrupt_id: interrupt.id, decision, token: interrupt.token };
      if (value !== undefined) body.value = value;
      if (edits) body.edits = edits;
      const answer = await link.client.resume(link.thread, body);
      if (link !== this.link) return;
      // An approval with changes is recorded from its answer event, which says each change as the service shows it,
      // in its place: before what its answer added.
      outcome = this.apply(answer, edits ? [] : this.decided(interrupt, decision, value, answer));
      if (edits) link.edited = { pause: interrupt.id, before: outcome };
      this.follow(link);
    } catch (err) {
      if (link !== this.link) return;
      const expired = err instanceof ApiError && err.code === 'pause_expired';
      // Nobody answered in time: its card says so in place of its answers, and the log keeps it once what waits is read.
      if (expired) outcome = this.expired(interrupt);
      this.fail(err);
      const stale = err instanceof ApiError && (err.code === 'interrupt_stale' || expired);
      // A copy makes its confirmation take an answer again.
      if (!stale) this.waiting = this.waiting.map((pause) => (pause === interrupt ? { ...pause } : pause));
    } finally {
      if (link === this.link) {
        this.deciding -= 1;
        if (link.again && !this.deciding) this.refresh();
      }
    }
    await this.updateComplete;
    const target = outcome === undefined ? null : this.renderRoot.querySelector(`[data-entry="${outcome}"]`);
    /** @type {HTMLElement | null} */ (target ?? this.renderRoot.querySelector('[part=log]'))?.focus();
  }

  /**
   * A pause a late answer found past its deadline (410 `pause_expired`): its card says nobody answered in time, and
   * the log records it (the clock's answer event completes the record).  The place in the log of the record.
   * @private @param {Record<string, any>} pause
   */
  expired(pause) {
    this.waiting = this.waiting.map((shown) => (shown.id === pause.id ? { ...shown, expired: true } : shown));
    if (this.entries.some((entry) => entry.kind === 'record' && entry.record?.pause === pause.id && entry.record?.decision === 'expired')) return undefined;
    const record = recordOf({ ...pause, pause: pause.id, decision: 'expired', by: '', principal: null, at: pause.expires_at || undefined });
    return record ? this.record([{ kind: 'record', record, event: '' }]) : undefined;
  }

  /** Rate a reply. @private @param {Entry} entry @param {'up' | 'down'} thumb */
  async rate(entry, thumb) {
    const link = this.link;
    if (!link || !entry.id) return;
    try {
      await link.client.feedback(link.thread, entry.id, thumb);
      if (link === this.link) this.entries = this.entries.map((line) => (line.n === entry.n ? { ...line, thumb } : line));
    } catch (err) {
      if (link === this.link) this.fail(err);
    }
  }

  /**
   * The record of a decision this page sent, until its answer event says who and when; none where that event
   * came first and made it.
   * @private @param {Record<string, any>} pause @param {string} decision @param {unknown} value @param {Record<string, any>} answer
   * @returns {Array<Omit<Entry, 'n'>>}
   */
  decided(pause, decision, value, answer) {
    const done = this.entries.some((entry) => entry.kind === 'record' && entry.record?.pause === pause.id && entry.record?.decision === decision);
    const open = (answer?.waiting ?? []).some((/** @type {Record<string, any>} */ still) => still.id === pause.id);
    const record = recordOf({ ...pause, pause: pause.id, decision, value, outcome: open ? 'approval' : 'taken', by: '', principal: null, at: undefined });
    return done || !record ? [] : [{ kind: 'record', record, event: '' }];
  }

  /**
   * Show a turn's or a decision's answer after `first` (a decision's record); the place in the log of the first line added.
   * @private @param {Record<string, any>} answer @param {Array<Omit<Entry, 'n'>>} [first]
   */
  apply(answer, first = []) {
    /** @type {Array<Omit<Entry, 'n'>>} */
    const lines = [...first];
    const refusals = answer?.refusals ?? [];
    const text = withoutRefusals(answer?.reply?.text ?? '', refusals);
    const results = resultsOf(answer?.steps);
    if (text || results.length) lines.push({ kind: 'reply', id: answer.reply?.id, text, results, sources: answer.reply?.sources });
    for (const refusal of refusals) lines.push({ kind: 'refusal', sentence: refusal.sentence, rule: refusal.rule ?? '' });
    if (answer?.rollback) lines.push({ kind: 'rollback', report: answer.rollback });
    this.waiting = same(this.waiting, answer?.waiting);
    return this.record(lines);
  }

  /**
   * Append lines to the log, or put them before the line at place `before`; the place of the first.
   * @private @param {Array<Omit<Entry, 'n'>>} lines @param {number} [before]
   */
  record(lines, before) {
    if (!lines.length) return undefined;
    const first = Math.max(0, ...this.entries.map((entry) => entry.n)) + 1;
    const entries = [...this.entries];
    const at = entries.findIndex((entry) => entry.n === before);
    entries.splice(at < 0 ? entries.length : at, 0, ...lines.map((line, i) => ({ ...line, n: first + i })));
    this.entries = entries.slice(-KEPT);
    return first;
  }

  /** @private @param {unknown} err */
  fail(err) {
    if (err instanceof ApiError && err.code === 'run_waiting') {
      this.waiting = same(this.waiting, err.body?.waiting);
    } else if (err instanceof ApiError && (err.code === 'interrupt_stale' || err.code === 'pause_expired')) {
      this.refresh();
    } else {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  /** @private */
  keepView() {
    if (this.link) remember('sessionStorage', viewKey(this.link.thread), JSON.stringify({ entries: this.entries, trace: this.trace }));
  }

  /** @private */
  scrollLog() {
    const log = this.renderRoot.querySelector('[part=log]');
    if (log) log.scrollTop = log.scrollHeight;
  }
}

/**
 * @typedef {object} Link the open thread
 * @property {string} thread
 * @property {Client} client
 * @property {Stream | null} stream null until the thread exists
 * @property {number} epoch bumped by each decision, so a read begun before it does not count
 * @property {boolean} reading
 * @property {boolean} again
 * @property {boolean} unstarted the element made the thread's id up on this load, and nobody has started it yet
 * @property {{pause: string, before: number | undefined}} [edited] the last approval with changes this page sent, and the
 * first line its answer added: its record, made from its answer event, goes before that line
 */

/** Keep the objects of pauses that did not change, so their confirmations keep their state. */
function same(/** @type {any[]} */ old, /** @type {any[] | undefined} */ next) {
  return (next ?? []).map((pause) => old.find((o) => o.id === pause.id && o.token === pause.token) ?? pause);
}

/**
 * A reply's words without the refusals it repeats: each refusal is shown once, as its own element.
 * @param {string} text @param {Array<Record<string, any>>} refusals
 */
function withoutRefusals(text, refusals) {
  let left = text;
  for (const refusal of refusals) if (refusal?.sentence) left = left.replace(refusal.sentence, '');
  return left.replace(/\s{2,}/g, ' ').trim();
}

/** What a reply's finished steps gave, for the steps that gave anything. @param {unknown} steps */
function resultsOf(steps) {
  if (!Array.isArray(steps)) return [];
  return steps
    .filter((step) => step?.status === 'done' && step.result !== null && step.result !== undefined)
    .map((step) => ({ tool: String(step.tool ?? ''), result: step.result }));
}

/** @param {Array<{tool: string, result: unknown}>} results */
function renderResults(results) {
  if (!results.length) return '';
  return html`<ul class="results" aria-label=${t('resultsTitle')}>
    ${results.map((line) => html`<li>${resultDisclosure(line.result, line.tool)}</li>`)}
  </ul>`;
}

/** A decision taken: what and by whom ("You approved", "Fiona approved"), and when. @param {Entry} entry */
function renderRecord(entry) {
  const record = entry.record;
  if (!record) return '';
  return html`<div class="entry record" data-entry=${entry.n} data-decision=${record.decision} data-outcome=${record.outcome} tabindex="-1">
    <p class="what">${recordText(record)}</p>
    <p class="meta muted"><time datetime=${record.at}>${whenText(record.at)}</time></p>
  </div>`;
}

/** @param {unknown} source */
function sourceText(source) {
  if (source && typeof source === 'object') {
    const { title, url } = /** @type {Record<string, unknown>} */ (source);
    return String(title ?? url ?? JSON.stringify(source));
  }
  return String(source);
}

/** @param {string} thread */
const viewKey = (thread) => `stalwart-view:${thread}`;

/** What this tab showed of the thread before a reload. @param {string} thread */
function readView(thread) {
  try {
    const view = JSON.parse(recall('sessionStorage', viewKey(thread)) ?? '{}');
    return { entries: Array.isArray(view.entries) ? view.entries : [], trace: Array.isArray(view.trace) ? view.trace : [] };
  } catch {
    return { entries: [], trace: [] };
  }
}

/** An id for the page's own conversation, kept in localStorage["stalwart-thread"] from its first turn on. */
function uuid() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // randomUUID is only in secure contexts; a plain-http page makes a v4 id by hand.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
