import { html } from 'lit';
import { ApiError } from '../../client.js';
import { ReadingElement } from '../../reading.js';
import { recordText, show, whenText } from '../../record.js';
import { strings, t } from '../../strings.js';
import styles from './stalwart-history.styles.js';

/** The element's own reactive state, kept out of its public surface (and its manifest). */
const STATE = Object.fromEntries(['decisions', 'intact', 'loaded', 'loading', 'error'].map((name) => [name, { state: true }]));
/** The issuer of the principal a server without authentication gives everyone: no one to name. */
const NOBODY = 'stalwart:none';

/**
 * @summary A thread's decision history, oldest first: who decided what on each of its pauses, under which rule, how
 * long it waited, when and through which channel; and a warning where the record was changed since it was written.
 * @tag stalwart-history
 *
 * @csspart history - The whole history: its heading, its status and its list.
 * @csspart history-title - The history's heading.
 * @csspart history-refresh - The button that reads the history again.
 * @csspart history-status - Loading, or an error, as a live status.
 * @csspart history-broken - The warning that the record does not match what was written (an entry changed, removed
 * or put out of order), shown above the list.
 * @csspart history-empty - What a thread without decisions says.
 * @csspart history-list - The decisions, oldest first, one entry each.
 * @csspart history-entry - One decision: what was decided and by whom, then its details.
 * @csspart history-what - Who decided what, on which call: "Fiona Walsh approved: Charge 40.00 EUR to order 4411".
 * @csspart history-approvals - On a call that needs several approvals, how many were given with this one: "1 of 2 approvals".
 * @csspart history-changes - The values changed before approving, each by its label: "Amount: 150.00 EUR → 120.00 EUR".
 * @csspart history-rule - The approver rule that said who may decide, or that the person who asked decides.
 * @csspart history-when - When it was decided, through which channel, and how long it had waited.
 * @csspart history-wait - How long the call waited for the decision: "waited 4 min".
 */
export class StalwartHistory extends ReadingElement {
  static get styles() {
    return styles;
  }

  /** @internal What the history reads is a function of these: a change reads it afresh. */
  static get query() {
    return ['base', 'thread', 'fetcher'];
  }

  static get properties() {
    return {
      /** Where the backend's routes are; "" (the default) for the page's own origin. */
      base: { type: String },
      /** The thread whose decisions are shown. */
      thread: { type: String },
      /**
       * Makes every request: `fetch` or anything that behaves like it, such as one that adds `Authorization: Bearer`
       * (the thread's owner) or `Stalwart-Operator-Token` (an operator).
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
    /** @type {typeof fetch} */
    this.fetcher = globalThis.fetch;
    /** @internal @type {Array<Record<string, any>>} */
    this.decisions = [];
    /** @internal whether the service found the record as it was written */
    this.intact = true;
    Object.assign(this, { loaded: false, loading: false, error: '' });
  }

  /** @internal */
  forget() {
    Object.assign(this, { decisions: [], intact: true, loaded: false, error: '' });
  }

  render() {
    const empty = this.loaded && !this.decisions.length;
    return html`<section part="history" aria-labelledby="history-title" aria-busy=${this.loading ? 'true' : 'false'}>
      <div class="bar">
        <h2 id="history-title" part="history-title">${t('historyTitle')}</h2>
        <button type="button" part="history-refresh" class="quiet" ?disabled=${this.loading || !this.thread} @click=${this.refresh}>${t('refresh')}</button>
      </div>
      <p part="history-status" role="status" class=${this.error ? 'bad' : ''}>${this.error ? t('error', { message: this.error }) : this.loading ? t('loading') : ''}</p>
      ${this.loaded && !this.intact ? html`<p part="history-broken" role="alert">${t('historyBroken')}</p>` : ''}
      <p part="history-empty" class="muted" ?hidden=${!empty}>${t('historyEmpty')}</p>
      <ol part="history-list" aria-labelledby="history-title" ?hidden=${!this.decisions.length}>
        ${this.decisions.map((decision) => renderDecision(decision))}
      </ol>
    </section>`;
  }

  /** Read the thread's decisions again, in place of what is shown. */
  async refresh() {
    const client = this.client;
    if (!client || !this.thread) return;
    this.epoch += 1;
    const epoch = this.epoch;
    this.loading = true;
    this.error = '';
    try {
      const body = await client.decisions(this.thread);
      if (epoch !== this.epoch) return;
      const decisions = Array.isArray(body?.decisions) ? body.decisions.filter((entry) => entry && typeof entry === 'object') : [];
      this.decisions = decisions.sort((a, b) => Number(a.seq ?? 0) - Number(b.seq ?? 0));
      this.intact = body?.intact !== false;
      this.loaded = true;
    } catch (err) {
      if (epoch !== this.epoch) return;
      // A thread nobody has started answers 404, as one the reader may not read does: no decisions for them.
      if (err instanceof ApiError && err.status === 404) Object.assign(this, { decisions: [], intact: true, loaded: true });
      else this.error = err instanceof Error ? err.message : String(err);
    } finally {
      if (epoch === this.epoch) this.loading = false;
    }
  }
}

/**
 * One decision: who decided what (in the words the conversation records it in), then its details.  No id is shown:
 * the entry's digest is kept in `data-digest` for whoever compares it with an exported record.
 * @param {Record<string, any>} decision
 */
function renderDecision(decision) {
  const approvals = decision.approvals;
  const rules = Array.isArray(decision.rules) ? decision.rules.filter(Boolean) : [];
  const changes = decision.decision === 'approve' && Array.isArray(decision.edits) ? decision.edits : [];
  const channel = String(decision.channel ?? '');
  const unverified = decision.by?.verified === 'none' && channel !== 'clock' && !decision.mine;
  const waited = durationText(Number(decision.waited));
  const at = String(decision.at ?? '');
  return html`<li part="history-entry" data-decision=${String(decision.decision ?? '')} data-outcome=${String(decision.outcome ?? '')} data-digest=${String(decision.digest ?? '')}>
    <h3 part="history-what">${recordText(recordOfDecision(decision))}</h3>
    ${approvals?.needed > 1 ? html`<p part="history-approvals">${t('historyApprovals', { given: approvals.given ?? 0, needed: approvals.needed })}</p>` : ''}
    ${changes.length
      ? html`<div part="history-changes">
          <p>${t('historyChanges')}</p>
          <ul>
            ${changes.map((edit) => html`<li>${t('historyChange', { label: edit.label || edit.name, from: edit.from ?? show(edit.asked), to: edit.to ?? show(edit.value) })}</li>`)}
          </ul>
        </div>`
      : ''}
    <p part="history-rule" class="muted">${rules.length ? t('historyRule', { rules: rules.join(', ') }) : t('historyOwner')}</p>
    <p part="history-when" class="muted">${joined([
      at ? html`<time datetime=${at}>${whenText(at)}</time>` : '',
      channel ? html`<span>${channelText(channel)}${unverified ? ` (${t('historyUnverified')})` : ''}</span>` : '',
      waited ? html`<span part="history-wait">${t('historyWaited', { time: waited })}</span>` : '',
    ])}</p>
  </li>`;
}

/**
 * A history entry as the conversation's decision record: the same words, "You approved: ..." where the reader
 * decided, "Fiona Walsh approved: ..." where someone else did, "Someone ..." where the service knows no name, and
 * "Nobody answered in time, ..." where the clock ended the pause.  Changes made before approving are listed on
 * their own lines, by label, so the sentence names the call only.
 * @param {Record<string, any>} decision
 * @returns {import('../../record.js').DecisionRecord}
 */
export function recordOfDecision(decision) {
  const by = decision.by ?? {};
  const clock = decision.channel === 'clock' || by.verified === 'clock';
  const mine = decision.mine === true;
  const named = by.issuer === NOBODY ? '' : String(by.name || by.subject || '');
  return {
    pause: '',
    kind: String(decision.kind ?? ''),
    decision: clock ? 'expired' : String(decision.decision ?? ''),
    outcome: String(decision.outcome ?? 'taken'),
    title: String(decision.title || decision.tool || ''),
    value: decision.value,
    edits: decision.decision === 'edited' && Array.isArray(decision.edits) ? decision.edits : [],
    who: mine ? '' : named || t('historySomeone'),
    mine,
    at: String(decision.at ?? ''),
  };
}

/** The pieces given, with " · " between them (a place the line may break). @param {unknown[]} pieces */
function joined(pieces) {
  return pieces.filter(Boolean).flatMap((piece, i) => (i ? [' · ', piece] : [piece]));
}

/** The channel a decision came through, in words; one the table lacks as given. @param {string} channel */
function channelText(channel) {
  const key = `channel_${channel}`;
  return Object.hasOwn(strings, key) ? t(key) : channel;
}

/**
 * How long a pause waited, as the page's language says it: "10 sec", "4 min", "1 hr 30 min", "2 days 3 hr"; "" for
 * none given.
 * @param {number} seconds
 */
export function durationText(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  /** @param {number} n @param {string} unit */
  const say = (n, unit) => new Intl.NumberFormat(undefined, { style: 'unit', unit, unitDisplay: 'short' }).format(n);
  if (seconds < 60) return say(Math.max(1, Math.round(seconds)), 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return say(minutes, 'minute');
  const [hours, restMinutes] = [Math.floor(minutes / 60), minutes % 60];
  if (hours < 24) return restMinutes ? `${say(hours, 'hour')} ${say(restMinutes, 'minute')}` : say(hours, 'hour');
  const [days, restHours] = [Math.floor(hours / 24), hours % 24];
  return restHours ? `${say(days, 'day')} ${say(restHours, 'hour')}` : say(days, 'day');
}
