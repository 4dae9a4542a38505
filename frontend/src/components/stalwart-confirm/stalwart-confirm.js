import { html } from 'lit';
import { StalwartElement } from '../../element.js';
import { originText } from '../../origin.js';
import { reasonText } from '../../reasons.js';
import { resultDisclosure } from '../../result.js';
import { t } from '../../strings.js';
import styles from './stalwart-confirm.styles.js';

/**
 * The strings key of each answer; an answer without one is shown as written.
 * @type {Record<string, string>}
 */
const ANSWER_KEYS = {
  approve: 'approve',
  skip: 'skip',
  cancel_all: 'cancelAll',
  happened: 'happened',
  did_not_happen: 'didNotHappen',
  retry: 'retry',
  done_by_hand: 'doneByHand',
  abandon: 'abandon',
  answer: 'send',
  decline: 'decline',
};

/** @type {Record<string, string>} The title of each kind of pause. */
const TITLES = {
  confirm: 'confirmTitle',
  outcome_unknown: 'unknownTitle',
  saga_stuck: 'stuck',
  delegate: 'delegateTitle',
};

/** The element's own reactive state (the answer chosen), kept out of its public surface. */
const STATE = { chosen: { state: true } };

/**
 * @summary One call that waits: its arguments with their origins, the reasons, the irreversible warning and its answers.
 * @tag stalwart-confirm
 *
 * @fires stalwart-decision - The person chose an answer: `detail` is `{interrupt, decision, value?}` (bubbles, composed).
 *
 * @csspart confirm - The whole pause: its title, and what follows.
 * @csspart turn - The turn a delegate pause would pass on.
 * @csspart arguments - The call's arguments, each with where its value came from.
 * @csspart reasons - Why the call waits, each reason a sentence (its code in `data-reason`).
 * @csspart irreversible - The warning that nothing can undo the call.
 * @csspart choices - The answers, one button each (and, for an ask, the labelled text input).
 */
export class StalwartConfirm extends StalwartElement {
  static get styles() {
    return styles;
  }

  static get properties() {
    return {
      /**
       * The pause, as the backend lists it: `{id, kind, tool, question, arguments, reasons,
       * irreversible, answers, token, ...}` plus `prompt`, `turn`, `undo` or `pending` by kind.
       * @type {Record<string, any> | null}
       */
      interrupt: { attribute: false },
      ...STATE,
    };
  }

  constructor() {
    super();
    /** @type {Record<string, any> | null} */
    this.interrupt = null;
    /** @internal */
    this.chosen = '';
  }

  /** @param {Map<string, unknown>} changed */
  willUpdate(changed) {
    if (changed.has('interrupt')) this.chosen = '';
  }

  render() {
    const pause = this.interrupt;
    if (!pause) return html``;
    const kind = pause.kind;
    const heading = title(pause);
    return html`<section part="confirm" aria-labelledby="title" data-kind=${kind}>
      ${pause.irreversible ? html`<p part="irreversible">${t('irreversible')}</p>` : ''}
      <h2 id="title" data-title=${pause.title ?? ''}>${heading}</h2>
      ${kind === 'confirm' && pause.question && pause.question !== `${heading}?`
        ? html`<p class="question">${pause.question}</p>`
        : ''}
      ${kind === 'delegate' ? html`<blockquote part="turn">${show(pause.turn)}</blockquote>` : ''}
      ${this.renderArguments(pause.arguments ?? [])} ${this.renderReasons(pause.reasons ?? [], pause.arguments ?? [])}
      ${kind === 'saga_stuck' ? this.renderPending(pause.pending ?? []) : ''}
      ${kind === 'ask' ? this.renderAsk() : this.renderChoices(pause)}
    </section>`;
  }

  /** @private @param {Array<Record<string, any>>} args */
  renderArguments(args) {
    if (!args.length) return '';
    return html`<div part="arguments">
      <h3>${t('argumentsTitle')}</h3>
      <dl>
        ${args.map(
          (arg) => html`<dt data-name=${arg.name} title=${arg.name}>${arg.label || arg.name}</dt>
            <dd class="value">${show(arg.value)}</dd>
            <dd class="origin muted" data-origin=${arg.origin ?? ''}>${originOf(arg)}</dd>`,
        )}
      </dl>
    </div>`;
  }

  /** @private @param {string[]} reasons @param {Array<Record<string, any>>} args */
  renderReasons(reasons, args) {
    if (!reasons.length) return '';
    /** @param {string} name */
    const labelOf = (name) => args.find((arg) => arg.name === name)?.label || name;
    return html`<div part="reasons">
      <h3>${t('reasonsTitle')}</h3>
      <ul>
        ${reasons.map((reason) => html`<li data-reason=${reason} title=${reason}>${reasonText(reason, labelOf)}</li>`)}
      </ul>
    </div>`;
  }

  /** @private @param {Array<Record<string, any>>} pending */
  renderPending(pending) {
    if (!pending.length) return '';
    return html`<ul class="pending">
      ${pending.map((line) => html`<li>${t('step', { step: line.step })} <span class="tool">${line.tool}</span></li>`)}
    </ul>`;
  }

  /** @private @param {Record<string, any>} pause */
  renderChoices(pause) {
    return html`<div part="choices">
      ${(pause.answers ?? []).map(
        (answer, index) => html`<button
          type="button"
          class=${index ? 'quiet' : pause.irreversible && answer === 'approve' ? 'irreversible' : ''}
          data-answer=${answer}
          ?disabled=${!!this.chosen}
          @click=${() => this.decide(answer)}
        >${answerText(pause, answer)}</button>`,
      )}
    </div>`;
  }

  /** @private */
  renderAsk() {
    return html`<form part="choices" @submit=${this.submitAnswer}>
      <label for="value">${t('answerLabel')}</label>
      <input id="value" name="value" type="text" autocomplete="off" aria-describedby="title" ?readonly=${!!this.chosen} />
      <button type="submit" data-answer="answer" ?disabled=${!!this.chosen}>${t('send')}</button>
    </form>`;
  }

  /** @private @param {SubmitEvent} event */
  submitAnswer(event) {
    event.preventDefault();
    const input = /** @type {HTMLFormElement} */ (event.currentTarget).elements.namedItem('value');
    const value = /** @type {HTMLInputElement} */ (input).value;
    if (value.trim()) this.decide('answer', value);
  }

  /** @private @param {string} decision @param {string} [value] */
  decide(decision, value) {
    if (this.chosen || !this.interrupt) return;
    this.chosen = decision;
    const detail = value === undefined ? { interrupt: this.interrupt, decision } : { interrupt: this.interrupt, decision, value };
    this.dispatchEvent(new CustomEvent('stalwart-decision', { bubbles: true, composed: true, detail }));
  }
}

/**
 * The card's heading: an ask's prompt; a confirm's described call ("Charge 40 to order 4411"), or
 * "Confirm charge_card?" where the tool has no words of its own; the other kinds' questions about that call.
 * @param {Record<string, any>} pause
 */
function title(pause) {
  if (pause.kind === 'ask') return pause.prompt || pause.question || '';
  const call = pause.title || pause.tool;
  if (pause.kind === 'confirm' && pause.title && pause.title !== pause.tool) return pause.title;
  return Object.hasOwn(TITLES, pause.kind) ? t(TITLES[pause.kind], { tool: call }) : pause.question || pause.kind;
}

/** @param {Record<string, any>} pause @param {string} answer */
function answerText(pause, answer) {
  if (pause.kind === 'delegate' && answer === 'approve') return t('delegateApprove');
  if (pause.irreversible && answer === 'approve') return t('approveIrreversible');
  return Object.hasOwn(ANSWER_KEYS, answer) ? t(ANSWER_KEYS[answer]) : answer;
}

/**
 * Where an argument's value came from: an earlier call's result names that call, and shows its value on request.
 * @param {Record<string, any>} arg
 */
function originOf(arg) {
  const source = arg.source;
  if (!source?.tool) return originText(arg.origin);
  const from = t('origin_from', { tool: source.tool });
  if (source.truncated) return html`${from} <span class="too-large">${t('sourceTooLarge')}</span>`;
  if (!Object.hasOwn(source, 'value')) return from;
  return html`${from} ${resultDisclosure(source.value, t('showSource'))}`;
}

/** A value as a person reads it: text as it is, anything else as JSON. @param {unknown} value */
function show(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
