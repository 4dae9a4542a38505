import { html } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { repeat } from 'lit/directives/repeat.js';
import { ApiError } from '../../client.js';
import { ReadingElement } from '../../reading.js';
import { exported } from '../../parts.js';
import { answerWords } from '../stalwart-confirm/stalwart-confirm.js';
import { strings, t } from '../../strings.js';
import styles from './stalwart-inbox.styles.js';

/** The element's own reactive state, kept out of its public surface (and its manifest). */
const STATE = Object.fromEntries(
  ['rows', 'next', 'loaded', 'loading', 'error', 'notice', 'failed', 'tools', 'picked', 'batch', 'sending'].map((name) => [name, { state: true }]),
);
/** A currency's code: its amounts are summed before several are approved at once. */
const CURRENCY = /^[A-Z]{3}$/;
/** The kinds of pause, in the order the kind filter offers them. */
const KINDS = ['confirm', 'ask', 'outcome_unknown', 'saga_stuck', 'delegate'];
export const PAGE_SIZE = 50;
/** How many empty pages with a cursor one read goes on through before it shows what it has. */
export const EMPTY_PAGES_READ_ON = 4;

/**
 * The id the thread's owner named it by: a signed-in owner's thread is stored as `<tag>:<id>`, the tag (22 characters
 * of a keyed digest) saying nothing a reader needs, so the heading leaves it out; the full id still reaches the thread.
 */
const ownersId = (thread) => thread.replace(/^[\w-]{22}:/, '');

/**
 * @summary What waits for a decision across threads, newest first, each pause with its thread's words and its card.
 * @tag stalwart-inbox
 *
 * @csspart title - The inbox's heading, which names its list.
 * @csspart refresh - The button that reads the inbox again.
 * @csspart filters - The labelled choices of tool and kind, which set the `tool` and `kind` attributes.
 * @csspart status - Loading, an error, or what the last decision did and what became of its call, as a live status.
 * @csspart empty - What an inbox with nothing waiting says.
 * @csspart list - The pauses, one row each.
 * @csspart row - One pause: its thread's words, and its card (who asked and when, who must decide, by when, its answers).
 * @csspart thread - The row's heading: its thread's words (the turn the pause came from), else the thread's id.
 * @csspart last-words - The thread's words, quoted, in the row's heading.
 * @csspart approvals - Who has approved so far, on a pause without a card that needs more than one approval.
 * @csspart row-error - Why a decision on the row was not taken, in the backend's words.
 * @csspart more - The button that reads the next page.
 * @csspart select - On a row the reader may approve, the labelled checkbox that selects it to decide with others of its
 * tool (those of another tool cannot be selected meanwhile).
 * @csspart batch - While rows are selected: how many, which tool, and the buttons "Approve 3", "Skip 3", "Clear selection".
 * @csspart batch-summary - Before several are answered at once: the question, each call's title, the sums, and the
 * buttons that answer them all or go back.
 * @csspart batch-total - In the summary, the sum of an argument in a currency over the selected calls:
 * "Amount in total: 360.00 EUR".
 */
export class StalwartInbox extends ReadingElement {
  static get styles() {
    return styles;
  }

  /** @internal What the inbox reads is a function of these: a change reads it afresh. */
  static get query() {
    return ['base', 'kind', 'tool', 'pageSize', 'fetcher'];
  }

  static get properties() {
    return {
      /** Where the backend's routes are; "" (the default) for the page's own origin. */
      base: { type: String },
      /** Only pauses of this kind (confirm, ask, ...); "" (the default) for every kind. */
      kind: { type: String, reflect: true },
      /** Only pauses of this tool; "" (the default) for every tool. */
      tool: { type: String, reflect: true },
      /** How many pauses a page reads, 50 by default; "Load more" reads the next page. */
      pageSize: { type: Number, attribute: 'page-size' },
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
    this.kind = '';
    this.tool = '';
    this.pageSize = PAGE_SIZE;
    /** @type {typeof fetch} */
    this.fetcher = globalThis.fetch;
    Object.assign(this, { rows: [], next: '', loaded: false, loading: false, error: '', notice: [], failed: {}, tools: {} });
    /** @internal @type {string[]} the ids of the rows selected to answer at once */
    this.picked = [];
    /** @internal the answer the summary asks about ("approve", "skip"); "" while it is not shown */
    this.batch = '';
    /** @internal whether the selected answers are on their way */
    this.sending = false;
    this.addEventListener('stalwart-decision', (event) => this.decide(/** @type {CustomEvent} */ (event)));
  }

  /** @internal */
  forget() {
    Object.assign(this, { rows: [], next: '', loaded: false, failed: {}, picked: [], batch: '' });
  }

  /** Each filter shows the choice in force, whatever order its options were drawn in. */
  updated() {
    for (const select of /** @type {NodeListOf<HTMLSelectElement>} */ (this.renderRoot.querySelectorAll('[part=filters] select'))) {
      const chosen = select.name === 'tool' ? this.tool : this.kind;
      if (select.value !== chosen) select.value = chosen ?? '';
    }
  }

  render() {
    const theme = ifDefined(this.theme || undefined);
    const chosen = this.chosen();
    return html`<div class="bar">
        <h2 id="title" part="title">${t('inboxTitle')}</h2>
        <button type="button" part="refresh" class="quiet" ?disabled=${this.loading} @click=${this.refresh}>${t('refresh')}</button>
      </div>
      ${this.renderFilters()}
      <div part="status" role="status" tabindex="-1" class=${this.error ? 'bad' : this.notice.length && !this.loading ? 'notice' : ''}>${this.statusText()}</div>
      ${this.renderBatch(chosen)}
      <p part="empty" class="muted" tabindex="-1" ?hidden=${!this.loaded || this.rows.length > 0 || !!this.next}>${t('inboxEmpty')}</p>
      <ul part="list" role="list" aria-labelledby="title" ?hidden=${!this.rows.length}>
        ${repeat(this.rows, (pause) => pause.id, (pause, index) => this.renderRow(pause, index, theme, chosen[0]))}
      </ul>
      <button type="button" part="more" class="quiet" ?hidden=${!this.next} ?disabled=${this.loading} @click=${this.more}>${t('loadMore')}</button>`;
  }

  /**
   * The choices of tool (those seen so far) and kind; each sets its attribute, which reads the inbox again.  Hidden
   * while nothing was ever listed and no choice is made, shown once either is, so a choice that empties the list
   * can be undone.
   * @private
   */
  renderFilters() {
    const tools = Object.entries({ ...(this.tool ? { [this.tool]: this.tool } : {}), ...this.tools }).sort((a, b) => a[1].localeCompare(b[1]));
    /** @param {string} name @param {string} label @param {string} chosen */
    const option = (name, label, chosen) => html`<option value=${name} ?selected=${name === chosen}>${label}</option>`;
    // Nothing to choose between, and no choice made: the controls would only be in the way.
    const idle = !tools.length && !this.kind && !this.rows.length;
    return html`<div part="filters" ?hidden=${idle}>
      <span class="filter">
        <label for="filter-tool">${t('filterTool')}</label>
        <select id="filter-tool" name="tool" @change=${(/** @type {Event} */ event) => (this.tool = selected(event))}>
          ${option('', t('allTools'), this.tool)} ${tools.map(([name, label]) => option(name, label, this.tool))}
        </select>
      </span>
      <span class="filter">
        <label for="filter-kind">${t('filterKind')}</label>
        <select id="filter-kind" name="kind" @change=${(/** @type {Event} */ event) => (this.kind = selected(event))}>
          ${option('', t('allKinds'), this.kind)} ${KINDS.map((kind) => option(kind, t(`kind_${kind}`), this.kind))}
        </select>
      </span>
    </div>`;
  }

  /**
   * While rows are selected, how many and the answers for them all; once one is chosen, what exactly it answers
   * (each call, and the sum of each amount in a currency) and the button that sends it.
   * @private @param {Array<Record<string, any>>} chosen
   */
  renderBatch(chosen) {
    const count = chosen.length;
    if (!count) return '';
    const decision = this.batch;
    /** @param {string} name @param {string} words @param {string} [kind] */
    const button = (name, words, kind = 'quiet') =>
      html`<button type="button" data-batch=${name} class=${kind} ?disabled=${this.sending} @click=${() => this.act(name)}>${t(words, { count })}</button>`;
    if (decision) {
      // Approving what cannot be undone says so first, and its button is drawn as the card's is.
      const warn = decision === 'approve' && chosen.some((pause) => pause.card?.irreversible ?? pause.irreversible);
      return html`<section part="batch-summary" aria-labelledby="batch-title">
        ${warn ? html`<p class="irreversible">${t('batchIrreversible')}</p>` : ''}
        <h3 id="batch-title" tabindex="-1">${t(`batchSure_${decision}`, { count })}</h3>
        <ul>${chosen.map((pause) => html`<li>${titleOf(pause)}</li>`)}</ul>
        ${totalsOf(chosen).map((line) => html`<p part="batch-total">${t('batchTotal', line)}</p>`)}
        <p class="buttons">${button('send', decision === 'skip' ? 'batchSkip' : 'batchApprove', warn ? 'irreversible' : '')} ${button('back', 'batchBack')}</p>
      </section>`;
    }
    const tool = chosen[0].tool;
    const skips = chosen.every((pause) => answersOf(pause).includes('skip'));
    return html`<div part="batch">
      <p aria-live="polite"><b>${t('batchSelected', { count })}</b> <span class="muted">${t('batchOneTool', { tool: this.tools[tool] || tool })}</span></p>
      <p class="buttons">${button('approve', 'batchApprove', '')} ${skips ? button('skip', 'batchSkip') : ''} ${button('clear', 'batchClear')}</p>
    </div>`;
  }

  /** The selected rows still listed, in the list's order. @private */
  chosen() {
    return this.rows.filter((row) => this.picked.includes(row.id));
  }

  /**
   * A button of the selection: show the summary of its answer ("approve", "skip") and focus its question, go
   * "back" to the button that showed it, "send" the answers, or "clear" the selection and focus the first row.
   * @private @param {string} name
   */
  async act(name) {
    if (name === 'send') return this.send();
    if (name === 'clear') {
      this.picked = [];
      return this.focusRow(0);
    }
    const back = this.batch;
    this.batch = name === 'back' ? '' : name;
    await this.updateComplete;
    /** @type {HTMLElement | null} */ (this.renderRoot.querySelector(this.batch ? '#batch-title' : `[data-batch=${back}]`))?.focus();
  }

  /**
   * Send the summary's answer for every selected row at once (`POST {base}/interrupts/answers`); the status then
   * says what became of each, and the inbox is read again.
   * @private
   */
  async send() {
    const client = this.client;
    const chosen = this.chosen();
    const decision = this.batch;
    if (!client || !chosen.length || this.sending) return;
    this.sending = true;
    this.error = '';
    try {
      const answer = await client.answers(chosen.map((pause) => ({ interrupt_id: pause.id, token: pause.token, decision })));
      const items = Array.isArray(answer?.answers) ? answer.answers : [];
      const lines = chosen.map((pause, index) => batchLine(pause, items.find((item) => item?.interrupt_id === pause.id) ?? items[index]));
      const done = items.filter((item) => item?.status === 200).length;
      Object.assign(this, { picked: [], batch: '' });
      await this.refresh();
      this.notice = [{ text: t(`batchDone_${decision}`, { done, count: chosen.length }) }, ...lines];
    } catch (err) {
      Object.assign(this, { batch: '', error: messageOf(err) });
    } finally {
      this.sending = false;
    }
    await this.updateComplete;
    /** @type {HTMLElement | null} */ (this.renderRoot.querySelector('[part=status]'))?.focus();
  }

  /** Select a row, or no longer. @private @param {Record<string, any>} pause */
  pick(pause) {
    this.picked = this.picked.includes(pause.id) ? this.picked.filter((id) => id !== pause.id) : [...this.picked, pause.id];
  }

  /**
   * A row the reader may approve can be selected, while no summary is shown and what is selected is of its tool.
   * @private @param {Record<string, any>} pause @param {Record<string, any> | undefined} first the first row selected
   */
  renderSelect(pause, first) {
    if (pause.expired || !answersOf(pause).includes('approve')) return '';
    const other = !!first && (first.tool !== pause.tool || first.kind !== pause.kind);
    return html`<label part="select"
      ><input
        type="checkbox"
        aria-label=${t('batchSelectCall', { title: titleOf(pause) })}
        .checked=${this.picked.includes(pause.id)}
        ?disabled=${other || !!this.batch}
        @change=${() => this.pick(pause)}
      />
      ${t('batchSelect')}</label
    >`;
  }

  /** @private @param {Record<string, any>} pause @param {number} index @param {unknown} theme @param {Record<string, any>} [first] */
  renderRow(pause, index, theme, first) {
    const failure = this.failed[pause.id];
    return html`<li
      part="row"
      class="row"
      data-id=${pause.id}
      data-thread=${pause.thread}
      ?data-selected=${this.picked.includes(pause.id)}
      tabindex="-1"
      aria-labelledby=${`thread-${index}`}
    >
      ${this.renderSelect(pause, first)}
      <p part="thread" id=${`thread-${index}`}>${pause.turn ? html`<q part="last-words">${pause.turn}</q>` : t('threadTitle', { thread: ownersId(pause.thread) })}</p>
      ${pause.approvals && !pause.card ? html`<p part="approvals">${approvalsText(pause.approvals)}</p>` : ''}
      ${failure ? html`<p part="row-error" role="alert">${t('error', { message: failure })}</p>` : ''}
      <stalwart-confirm exportparts=${exported('stalwart-confirm')} .interrupt=${this.picked.includes(pause.id) ? asAsked(pause) : pause} theme=${theme}></stalwart-confirm>
    </li>`;
  }

  /** @private */
  statusText() {
    if (this.error) return t('error', { message: this.error });
    if (this.loading) return t('loading');
    return this.notice.map((line) => html`<span class=${line.bad ? 'line bad' : 'line'}>${line.text}</span>`);
  }

  /** Read the first page again, in place of what is shown. */
  refresh() {
    return this.read('');
  }

  /** Read the page after the last one read, below it. @private */
  async more() {
    if (!this.next) return;
    const first = this.rows.length;
    const kept = this.renderRoot.activeElement?.matches('[part=more]');
    await this.read(this.next);
    // The button goes with the last page: focus the first row it brought rather than lose it.
    if (kept && this.rows.length > first) this.focusRow(first);
  }

  /**
   * One page: the first (no cursor), which replaces the rows, or the next, which follows them.
   * @private @param {string} cursor
   */
  async read(cursor) {
    const client = this.client;
    // The first page supersedes any read under way; the next waits for the one under way.
    if (!client || (cursor && this.loading)) return;
    const epoch = cursor ? this.epoch : ++this.epoch;
    this.loading = true;
    this.error = '';
    if (!cursor) this.notice = [];
    try {
      // A page may come back empty with a cursor (the service reads a bounded stretch of what waits per request,
      // and the person may answer none of it): read on a few times before showing an empty inbox.
      let page = await client.inbox({ kind: this.kind, tool: this.tool, limit: this.pageSize, cursor });
      for (let hop = 0; hop < EMPTY_PAGES_READ_ON && !page?.waiting?.length && page?.next; hop += 1) {
        if (epoch !== this.epoch) return;
        page = await client.inbox({ kind: this.kind, tool: this.tool, limit: this.pageSize, cursor: page.next });
      }
      if (epoch !== this.epoch) return;
      const waiting = Array.isArray(page?.waiting) ? page.waiting : [];
      if (cursor) {
        this.rows = [...this.rows, ...waiting.filter((pause) => !this.rows.some((row) => row.id === pause.id))];
      } else {
        this.rows = waiting;
        this.failed = {};
      }
      this.next = page?.next || '';
      this.loaded = true;
      this.tools = toolsOf(this.tools, waiting);
    } catch (err) {
      if (epoch === this.epoch) this.error = messageOf(err);
    } finally {
      if (epoch === this.epoch) this.loading = false;
    }
  }

  /**
   * Send a person's decision on a row.  A pause the answer leaves open (an approval that four eyes counted) stays,
   * refreshed; one it ends goes, and focus moves to the row that takes its place.
   * @private @param {CustomEvent} event
   */
  async decide(event) {
    const { interrupt, decision, value, edits } = event.detail ?? {};
    const client = this.client;
    if (!client || !interrupt?.id || !decision) return;
    const epoch = this.epoch;
    /** @type {{interrupt_id: string, decision: string, token: string, value?: string, edits?: Record<string, unknown>}} */
    const body = { interrupt_id: interrupt.id, decision, token: interrupt.token };
    if (value !== undefined) body.value = value;
    if (edits) body.edits = edits;
    this.failed = without(this.failed, interrupt.id);
    try {
      const answer = await client.resume(interrupt.thread, body);
      if (epoch !== this.epoch) return;
      const open = (answer?.waiting ?? []).find((/** @type {Record<string, any>} */ pause) => pause.id === interrupt.id);
      if (open) this.counted({ ...interrupt, ...open });
      else this.answered(interrupt, decision, value, answer, !!edits);
    } catch (err) {
      if (epoch !== this.epoch) return;
      if (err instanceof ApiError && err.code === 'pause_expired') {
        this.expired(interrupt);
        return;
      }
      this.failed = { ...this.failed, [interrupt.id]: messageOf(err) };
      // A copy makes its confirmation take an answer again; a pause the run moved past takes none.
      const stale = err instanceof ApiError && err.code === 'interrupt_stale';
      if (!stale) this.rows = this.rows.map((row) => (row === interrupt ? { ...row } : row));
      const index = this.rows.findIndex((row) => row.id === interrupt.id);
      if (index >= 0) this.focusRow(index);
    }
  }

  /**
   * A pause a late answer found past its deadline (410 `pause_expired`): nothing was done.  Its row stays, its card
   * saying nobody answered in time in place of its answers, and the status says the call was not done.
   * @private @param {Record<string, any>} pause
   */
  expired(pause) {
    this.rows = this.rows.map((row) => (row.id === pause.id ? { ...row, expired: true } : row));
    this.notice = [{ text: t('outcome_expired', { title: titleOf(pause) }) }];
    this.focusRow(this.rows.findIndex((row) => row.id === pause.id));
  }

  /** @private @param {Record<string, any>} pause the pause, still open, with the approvals given so far */
  counted(pause) {
    this.rows = this.rows.map((row) => (row.id === pause.id ? pause : row));
    this.notice = [{ text: t('outcomeCounted') }];
    this.focusRow(this.rows.indexOf(pause));
  }

  /**
   * A pause the answer ended: its row goes, or gives way to what the answer now waits on in its thread; the status
   * says what was answered and what became of the call ("You answered Approve: ..." and "...: done").
   * @private @param {Record<string, any>} pause @param {string} decision @param {unknown} value @param {Record<string, any>} answer
   * @param {boolean} edited whether it was approved with changes
   */
  answered(pause, decision, value, answer, edited) {
    const index = this.rows.findIndex((row) => row.id === pause.id);
    const after = (Array.isArray(answer?.waiting) ? answer.waiting : [])
      .filter((next) => next?.id && next.id !== pause.id && !this.rows.some((row) => row.id === next.id))
      .map((next) => ({ turn: pause.turn, ...next }));
    this.rows = [...this.rows.slice(0, Math.max(index, 0)), ...after, ...this.rows.slice(index + 1)];
    this.failed = without(this.failed, pause.id);
    this.notice = outcomeOf(pause, decision, value, answer, after.length > 0, edited);
    this.focusRow(Math.min(index, this.rows.length - 1));
  }

  /**
   * After the next render, focus the row at `index`; with no rows, "Load more" or what an empty inbox says.
   * @private @param {number} index
   */
  async focusRow(index) {
    await this.updateComplete;
    const rows = this.renderRoot.querySelectorAll('[part=row]');
    const more = this.next ? this.renderRoot.querySelector('[part=more]') : null;
    const target = rows[index] ?? rows[rows.length - 1] ?? more ?? this.renderRoot.querySelector('[part=empty]');
    /** @type {HTMLElement | null} */ (target)?.focus();
  }
}

/**
 * What an answer did, in words: what was answered, what became of its call (the reply's step for it), and
 * whether something now waits in its place.  A call approved with changes is named by its tool there, as its
 * title says the values asked.
 * @param {Record<string, any>} pause @param {string} decision @param {unknown} value @param {Record<string, any>} answer @param {boolean} waits
 * @param {boolean} [edited]
 * @returns {Array<{text: string, bad?: boolean}>}
 */
function outcomeOf(pause, decision, value, answer, waits, edited) {
  const title = titleOf(pause);
  const words = edited ? t('approveEdited') : decision === 'answer' && value !== undefined ? String(value) : answerWords(decision);
  const lines = [{ text: t('inboxAnswered', { decision: words, title }) }];
  const step = stepLine(pause, answer?.steps, edited ? pause.label || pause.tool : title);
  if (step) lines.push(step);
  if (waits) lines.push({ text: t('outcomeWaits') });
  return lines;
}

/**
 * What became of a pause's call, from the steps an answer gives: "...: done", "...: failed"; null for none.
 * @param {Record<string, any>} pause @param {unknown} steps @param {string} title
 */
function stepLine(pause, steps, title) {
  const step = [...(Array.isArray(steps) ? steps : [])].reverse().find((line) => line?.step === pause.step && (!pause.tool || line.tool === pause.tool));
  const key = `outcome_${step?.status}`;
  return step && Object.hasOwn(strings, key) ? { text: t(key, { title }), bad: step.status === 'failed' } : null;
}

/**
 * What became of one of several answered at once: its call's step, or that it was answered; else why not (someone
 * else answered first, it is not the reader's to answer, nobody answered in time, or the service's words).
 * @param {Record<string, any>} pause @param {Record<string, any> | undefined} item the batch's answer for it
 */
function batchLine(pause, item) {
  const title = titleOf(pause);
  const status = item?.status;
  if (status === 200) return stepLine(pause, item?.steps, title) ?? { text: t('batchTaken', { title }) };
  const key = { 409: 'batchStale', 403: 'batchNotYours', 404: 'batchNotYours', 410: 'outcome_expired' }[status] ?? 'batchFailed';
  return { text: t(key, { title, message: item?.message || item?.error || status }), bad: key === 'batchFailed' };
}

/**
 * The sum of each argument the first call gives in a currency, over calls that all give it as a number in that
 * currency: `{label, sum}`, the sum as the card shows an amount ("360.00 EUR").
 * @param {Array<Record<string, any>>} pauses
 */
function totalsOf(pauses) {
  /** @param {Record<string, any>} pause @param {string} name */
  const argOf = (pause, name) => (pause.card?.arguments ?? []).find((/** @type {Record<string, any>} */ arg) => arg.name === name);
  return (pauses[0].card?.arguments ?? []).flatMap((/** @type {Record<string, any>} */ arg) => {
    const all = pauses.map((pause) => argOf(pause, arg.name));
    if (!CURRENCY.test(arg.unit ?? '') || !all.every((one) => one?.unit === arg.unit && typeof one.value === 'number')) return [];
    const sum = all.reduce((total, one) => total + one.value, 0);
    return [{ label: arg.label || arg.name, sum: `${sum.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${arg.unit}` }];
  });
}

/** A pause's call in words: its card's title, else its own, else its tool. @param {Record<string, any>} pause */
function titleOf(pause) {
  return pause.card?.title || pause.title || pause.tool || '';
}

/** The answers a pause takes from this reader: its card's, else its own. @param {Record<string, any>} pause @returns {string[]} */
function answersOf(pause) {
  return pause.card ? pause.card.answers.map((/** @type {Record<string, any>} */ answer) => answer.decision) : (pause.answers ?? []);
}

/** The tools seen so far, by name, with a person's name for each. @param {Record<string, string>} known @param {Array<Record<string, any>>} pauses */
function toolsOf(known, pauses) {
  const found = pauses.filter((pause) => pause?.tool && !Object.hasOwn(known, pause.tool));
  return found.length ? { ...known, ...Object.fromEntries(found.map((pause) => [pause.tool, String(pause.label || pause.tool)])) } : known;
}

/**
 * A selected row's pause without inputs: a batch approves each call as asked, so its card shows it as asked.
 * @param {Record<string, any>} pause
 */
function asAsked(pause) {
  const card = pause.card;
  return card ? { ...pause, card: { ...card, arguments: card.arguments?.map((/** @type {object} */ a) => ({ ...a, edit: undefined })) } } : pause;
}

/** @param {Event} event */
function selected(event) {
  return /** @type {HTMLSelectElement} */ (event.currentTarget).value;
}

/** @param {{ needed: number, given?: Array<Record<string, any>> }} approvals */
function approvalsText(approvals) {
  const given = approvals.given ?? [];
  if (!given.length) return t('approvalsNone', { needed: approvals.needed });
  const names = given.map((approval) => approval.by || approval.principal?.sub || '').join(', ');
  return t('approvalsGiven', { names, given: given.length, needed: approvals.needed });
}

/** @param {unknown} err */
function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}

/** @param {Record<string, string>} failed @param {string} id */
function without(failed, id) {
  if (!Object.hasOwn(failed, id)) return failed;
  const rest = { ...failed };
  delete rest[id];
  return rest;
}
