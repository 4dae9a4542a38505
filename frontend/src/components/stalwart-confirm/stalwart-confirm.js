import { html } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { StalwartElement } from '../../element.js';
import { originText } from '../../origin.js';
import { reasonText } from '../../reasons.js';
import { show } from '../../record.js';
import { resultDisclosure } from '../../result.js';
import { isSaid, saidText } from '../../said.js';
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

/** The element's own reactive state (the answer chosen, what was typed over the asked values), kept out of its public surface. */
const STATE = { chosen: { state: true }, typed: { state: true } };
/** The input each kind of editable value is typed into, and the step a number takes. */
const INPUTS = { number: 'number', integer: 'number', string: 'text', boolean: 'checkbox' };
const STEPS = { number: 'any', integer: '1' };
/** Answers that undo or give up on more than this call: drawn as destructive where a pause has no card to say so. */
const DANGER = new Set(['cancel_all', 'abandon']);
/** The class of a button in each of the card's styles. @type {Record<string, string>} */
const STYLES = { primary: '', secondary: 'quiet', danger: 'danger' };
/** The kinds a deadline ends; an outcome_unknown's or a saga_stuck's escalates instead, and it waits on. */
const EXPIRING = new Set(['confirm', 'ask', 'delegate']);
/** Under this much time left, a deadline looks urgent. */
const URGENT_MS = 60 * 60 * 1000;
/** The longest a timer waits (setTimeout's limit); a later moment is looked at again then. */
const LONGEST_WAIT_MS = 2 ** 31 - 1;

/**
 * @summary One call that waits: its arguments with their origins, the reasons, the irreversible warning and its answers.
 * @tag stalwart-confirm
 *
 * @fires stalwart-decision - The person chose an answer: `detail` is `{interrupt, decision, value?, edits?}` (bubbles, composed);
 * `edits` holds only the values the person changed before approving, as JSON (numbers, true/false, text).
 *
 * @csspart confirm - The whole pause: its title, and what follows.
 * @csspart turn - The turn a delegate pause would pass on.
 * @csspart arguments - The call's arguments, each with where its value came from.
 * @csspart reasons - Why the call waits, each reason a sentence (its code in `data-reason`).
 * @csspart irreversible - The warning that nothing can undo the call.
 * @csspart choices - The answers, one button each (and, for an ask, the labelled text input).
 * @csspart asked - Who asked, and when (from the pause's card).
 * @csspart deciders - Who must decide: the approvals so far, or whom a rule gives the decision to (from the card).
 * @csspart waits-for - Why the reader cannot approve, and who can: "Waits for finance to decide" (from the card).
 * @csspart deadline - When the pause ends if nobody answers, and what then: "Answer by ...; after that it is skipped."
 * (`data-urgent` once less than an hour is left).
 * @csspart escalation - Who else is asked if nobody answers, and when; or that they have been.
 * @csspart expired - In place of the answers, once nobody answered in time: "Nobody answered by ..., so it was skipped."
 * @csspart edit-input - The input of an argument the reader may change before approving (the card's `edit`), its unit beside it.
 * @csspart asked-value - Beside a value, what was asked before it was changed: "asked 150.00 EUR".
 * @csspart edit-error - Why an input's value cannot be approved: "Enter a number for Amount to approve." (Approve is disabled).
 * @csspart edit-reset - The button that puts back every value as it was asked.
 */
export class StalwartConfirm extends StalwartElement {
  static get styles() {
    return styles;
  }

  static get properties() {
    return {
      /**
       * The pause, as the backend lists it: `{id, kind, tool, question, arguments, reasons,
       * irreversible, answers, token, ...}` plus `prompt`, `turn`, `undo` or `pending` by kind, and
       * `card`, what this reader sees of it; a pause without a card is shown from its own fields.  One with
       * `expires_at` says when it ends if nobody answers; once that passes (or with `expired: true`, which the chat
       * and the inbox set on a late answer's 410 `pause_expired`) it says nobody answered in time, with no answers.
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
    /** @internal @type {Record<string, string | boolean>} what the person typed over each editable argument, by name */
    this.typed = {};
    /** @internal the timer that shows the deadline urgent, then expired, when its moment comes */
    this.timer = undefined;
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Look again when the deadline turns urgent, and when it passes. */
  updated() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const pause = this.interrupt;
    if (!pause || !this.isConnected) return;
    const left = timeLeft(pause, cardOf(pause));
    if (left === null || left <= 0) return;
    const wait = left > URGENT_MS ? left - URGENT_MS : left;
    this.timer = setTimeout(() => this.requestUpdate(), Math.min(wait + 50, LONGEST_WAIT_MS));
  }

  /** @param {Map<string, unknown>} changed */
  willUpdate(changed) {
    if (!changed.has('interrupt')) return;
    this.chosen = '';
    // The same pause again (a refused answer, a fresh read) keeps what was typed over it.
    if (/** @type {Record<string, any> | undefined} */ (changed.get('interrupt'))?.id !== this.interrupt?.id) this.typed = {};
  }

  render() {
    const pause = this.interrupt;
    if (!pause) return html``;
    const card = cardOf(pause);
    const kind = card?.kind || pause.kind;
    const heading = title(pause, card);
    const question = card ? card.question : pause.question;
    const irreversible = card ? card.irreversible : pause.irreversible;
    const waitsFor = saidText(card?.waits_for);
    // Under a rule, "Waits for finance to decide" already says who decides; the approvals so far are news.
    const deciders = waitsFor && card?.deciders?.key === 'decidesApprover' ? '' : saidText(card?.deciders);
    const asked = saidText(card?.asked);
    const left = timeLeft(pause, card);
    const expired = EXPIRING.has(kind) && (pause.expired === true || (left !== null && left <= 0));
    const args = argumentsOf(pause, card).map((arg) => (expired ? { ...arg, edit: undefined } : arg));
    const form = formOf(args, this.typed);
    return html`<section part="confirm" aria-labelledby="title" data-kind=${kind} ?data-expired=${expired}>
      ${irreversible && !expired ? html`<p part="irreversible">${t('irreversible')}</p>` : ''}
      <h2 id="title" data-title=${pause.title ?? ''}>${heading}</h2>
      ${kind === 'confirm' && question && question !== `${heading}?` ? html`<p class="question">${question}</p>` : ''}
      ${asked ? html`<p part="asked" class="muted" data-when=${card?.asked?.values?.when ?? ''}>${asked}</p>` : ''}
      ${deciders ? html`<p part="deciders" data-key=${card?.deciders?.key}>${deciders}</p>` : ''}
      ${expired ? '' : this.renderDeadline(pause, card, left)}
      ${waitsFor && !expired ? html`<p part="waits-for">${waitsFor}</p>` : ''}
      ${kind === 'delegate' ? html`<blockquote part="turn">${show(pause.turn)}</blockquote>` : ''}
      ${this.renderArguments(args, form)} ${this.renderReasons(reasonsOf(pause, card))}
      ${kind === 'saga_stuck' ? this.renderPending(pause.pending ?? []) : ''}
      ${expired ? renderExpired(pause, card) : kind === 'ask' ? this.renderAsk(card) : this.renderChoices(answersOf(pause, card, irreversible), form, irreversible)}
    </section>`;
  }

  /**
   * When the pause ends if nobody answers (urgent with less than an hour left), and who else is asked.
   * @private @param {Record<string, any>} pause @param {Record<string, any> | null} card @param {number | null} left
   */
  renderDeadline(pause, card, left) {
    const deadline = deadlineOf(pause, card);
    const escalation = escalationOf(pause, card);
    const urgent = left !== null && left > 0 && left <= URGENT_MS;
    return html`${deadline
      ? html`<p part="deadline" data-key=${deadline.key} data-when=${String(deadline.values?.when ?? '')} ?data-urgent=${urgent}>${saidText(deadline)}</p>`
      : ''}
    ${escalation ? html`<p part="escalation" class="muted" data-key=${escalation.key}>${saidText(escalation)}</p>` : ''}`;
  }

  /**
   * Each argument, its value or, where the reader may change it, its input; beside either, what was asked before a
   * change.  Below them, while anything was changed, the button that puts every value back.
   * @private @param {Shown[]} args @param {Form} form
   */
  renderArguments(args, form) {
    if (!args.length) return '';
    return html`<div part="arguments">
      <h3>${t('argumentsTitle')}</h3>
      <dl>
        ${args.map((arg, index) => {
          const id = `edit-${index}`;
          const state = form.state[arg.name];
          const asked = state ? arg.shown : arg.asked;
          return html`<dt data-name=${arg.name} title=${arg.name}>${arg.edit ? html`<label for=${id}>${arg.label}</label>` : arg.label}</dt>
            <dd class="value">${arg.edit ? this.renderInput(arg, id, state) : arg.shown}${asked ? html` <span part="asked-value">${t('editAsked', { shown: asked })}</span>` : ''}${
              state && state !== 'changed' ? html`<span part="edit-error" id=${`${id}-error`}>${t(state, { label: arg.label })}</span>` : ''
            }</dd>
            <dd class="origin muted" data-origin=${arg.origin}>${arg.words}</dd>`;
        })}
      </dl>
      ${Object.keys(form.state).length
        ? html`<button type="button" part="edit-reset" class="quiet" ?disabled=${!!this.chosen} @click=${this.reset}>${t('editReset')}</button>`
        : ''}
    </div>`;
  }

  /** @private @param {Shown} arg @param {string} id @param {string | undefined} state */
  renderInput(arg, id, state) {
    const value = Object.hasOwn(this.typed, arg.name) ? this.typed[arg.name] : asTyped(arg);
    const invalid = !!state && state !== 'changed';
    return html`<input
        part="edit-input"
        id=${id}
        name=${arg.name}
        type=${INPUTS[arg.edit ?? ''] ?? 'text'}
        step=${ifDefined(STEPS[arg.edit ?? ''])}
        .value=${String(value)}
        .checked=${value === true}
        aria-invalid=${invalid}
        aria-describedby=${ifDefined(invalid ? `${id}-error` : undefined)}
        ?disabled=${!!this.chosen}
        @input=${(/** @type {Event} */ event) => {
          const input = /** @type {HTMLInputElement} */ (event.currentTarget);
          this.typed = { ...this.typed, [arg.name]: arg.edit === 'boolean' ? input.checked : input.value };
        }}
      />${arg.unit ? html` <span class="unit">${arg.unit}</span>` : ''}`;
  }

  /** Put back every value as it was asked, and focus the first input. @private */
  async reset() {
    this.typed = {};
    await this.updateComplete;
    /** @type {HTMLElement | null} */ (this.renderRoot.querySelector('[part=edit-input]'))?.focus();
  }

  /** @private @param {Array<{code: string, text: string}>} reasons */
  renderReasons(reasons) {
    if (!reasons.length) return '';
    return html`<div part="reasons">
      <h3>${t('reasonsTitle')}</h3>
      <ul>
        ${reasons.map((reason) => html`<li data-reason=${reason.code} title=${reason.code}>${reason.text}</li>`)}
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

  /**
   * The answers; where values were changed, Approve says so and sends them, and while one cannot be approved
   * it is disabled, described by why.
   * @private @param {Array<{decision: string, text: string, style: string, className: string}>} answers @param {Form} form @param {boolean} irreversible
   */
  renderChoices(answers, form, irreversible) {
    if (!answers.length) return '';
    const edited = Object.keys(form.edits).length > 0;
    return html`<div part="choices">
      ${answers.map((answer) => {
        const approve = answer.decision === 'approve';
        return html`<button
          type="button"
          class=${answer.className}
          data-answer=${answer.decision}
          data-variant=${answer.style}
          aria-describedby=${ifDefined(approve && form.error ? form.error : undefined)}
          ?disabled=${!!this.chosen || (approve && !!form.error)}
          @click=${() => this.decide(answer.decision, undefined, approve && edited ? form.edits : undefined)}
        >${approve && edited ? t(irreversible ? 'approveEditedIrreversible' : 'approveEdited') : answer.text}</button>`;
      })}
    </div>`;
  }

  /** @private @param {Record<string, any> | null} card */
  renderAsk(card) {
    if (card && !card.answers.some((/** @type {Record<string, any>} */ answer) => answer.decision === 'answer')) return '';
    return html`<form part="choices" @submit=${this.submitAnswer}>
      <label for="value">${t('answerLabel')}</label>
      <input id="value" name="value" type="text" autocomplete="off" aria-describedby="title" ?readonly=${!!this.chosen} />
      <button type="submit" data-answer="answer" data-variant="primary" ?disabled=${!!this.chosen}>${t('send')}</button>
    </form>`;
  }

  /** @private @param {SubmitEvent} event */
  submitAnswer(event) {
    event.preventDefault();
    const input = /** @type {HTMLFormElement} */ (event.currentTarget).elements.namedItem('value');
    const value = /** @type {HTMLInputElement} */ (input).value;
    if (value.trim()) this.decide('answer', value);
  }

  /** @private @param {string} decision @param {string} [value] @param {Record<string, unknown>} [edits] */
  decide(decision, value, edits) {
    if (this.chosen || !this.interrupt) return;
    this.chosen = decision;
    /** @type {Record<string, unknown>} */
    const detail = { interrupt: this.interrupt, decision };
    if (value !== undefined) detail.value = value;
    if (edits) detail.edits = edits;
    this.dispatchEvent(new CustomEvent('stalwart-decision', { bubbles: true, composed: true, detail }));
  }
}

/**
 * @typedef {object} Shown an argument as the card shows it
 * @property {string} name
 * @property {string} label
 * @property {unknown} shown its value, as a person reads it (in its unit, where the card gives one)
 * @property {string} origin where it came from, as the pause gives it (`typed`, `result:1.1`)
 * @property {unknown} words where it came from, in words
 * @property {unknown} [value] its value, as JSON
 * @property {string} [edit] how the reader may type a new value before approving: number, integer, string, boolean
 * @property {string} [unit] its unit, shown beside its input
 * @property {string} [asked] what was asked before someone changed it, as a person reads it
 */

/**
 * What the person typed over the asked values: the changes (as JSON, only those that differ), and each changed
 * argument's state, `changed` or the key of why it cannot be approved; `error` the id of the first such message.
 * @typedef {{ edits: Record<string, unknown>, state: Record<string, string>, error: string }} Form
 */

/** @param {Shown[]} args @param {Record<string, string | boolean>} typed @returns {Form} */
function formOf(args, typed) {
  /** @type {Form} */
  const form = { edits: {}, state: {}, error: '' };
  args.forEach((arg, index) => {
    if (!arg.edit || !Object.hasOwn(typed, arg.name) || typed[arg.name] === asTyped(arg)) return;
    const raw = typed[arg.name];
    const numeric = arg.edit === 'number' || arg.edit === 'integer';
    const value = numeric ? Number(String(raw).trim() || NaN) : raw;
    const error = !numeric ? '' : !Number.isFinite(value) ? 'editNumber' : arg.edit === 'integer' && !Number.isInteger(value) ? 'editInteger' : '';
    if (error) form.error ||= `edit-${index}-error`;
    else if (value === arg.value) return;
    else form.edits[arg.name] = value;
    form.state[arg.name] = error || 'changed';
  });
  return form;
}

/** An editable argument's value as its input holds it: a checkbox's checked, else the text. @param {Shown} arg */
function asTyped(arg) {
  return arg.edit === 'boolean' ? arg.value === true : arg.value == null ? '' : String(arg.value);
}

/**
 * When the pause ends if nobody answers, and what then: the card's words, else the pause's own fields.
 * @param {Record<string, any>} pause @param {Record<string, any> | null} card
 * @returns {import('../../said.js').Said | null}
 */
function deadlineOf(pause, card) {
  if (card && Object.hasOwn(card, 'deadline')) return isSaid(card.deadline) ? card.deadline : null;
  if (typeof pause.expires_at !== 'string') return null;
  return { key: cancels(pause, card) ? 'deadlineCancel' : 'deadlineSkip', values: { when: pause.expires_at } };
}

/**
 * Who else is asked if nobody answers, and when, or that they have been: the card's words, else the pause's fields.
 * @param {Record<string, any>} pause @param {Record<string, any> | null} card
 * @returns {import('../../said.js').Said | null}
 */
function escalationOf(pause, card) {
  if (card && Object.hasOwn(card, 'escalation')) return isSaid(card.escalation) ? card.escalation : null;
  const escalation = pause.escalation;
  if (!escalation || typeof escalation !== 'object' || typeof escalation.at !== 'string') return null;
  const who = escalation.to;
  if (escalation.done) return who ? { key: 'escalated', values: { who } } : { key: 'escalatedOverdue', values: {} };
  return who ? { key: 'escalatesAt', values: { who, when: escalation.at } } : { key: 'overdueAt', values: { when: escalation.at } };
}

/** Whether nobody answering cancels the whole request, rather than skipping the call. @param {Record<string, any>} pause @param {Record<string, any> | null} card */
function cancels(pause, card) {
  return pause.on_expiry === 'cancel_all' || card?.deadline?.key === 'deadlineCancel';
}

/** When the pause ends if nobody answers, as an ISO time; "" for no deadline. @param {Record<string, any>} pause @param {Record<string, any> | null} card */
function expiresAt(pause, card) {
  if (typeof pause.expires_at === 'string') return pause.expires_at;
  const when = card?.deadline?.values?.when;
  return typeof when === 'string' ? when : '';
}

/** Milliseconds until the pause's deadline (0 or less: passed); null for none. @param {Record<string, any>} pause @param {Record<string, any> | null} card */
function timeLeft(pause, card) {
  const at = Date.parse(expiresAt(pause, card));
  return Number.isNaN(at) ? null : at - Date.now();
}

/** In place of the answers, what became of a pause nobody answered in time. @param {Record<string, any>} pause @param {Record<string, any> | null} card */
function renderExpired(pause, card) {
  const when = expiresAt(pause, card);
  const key = cancels(pause, card) ? 'expiredCancel' : 'expiredSkip';
  const words = when ? saidText({ key, values: { when } }) : t('outcome_expired', { title: title(pause, card) });
  return html`<p part="expired" data-key=${key} data-when=${when}>${words}</p>`;
}

/** The pause's card, where it carries one the element can read. @param {Record<string, any>} pause */
function cardOf(pause) {
  const card = pause.card;
  return card && typeof card === 'object' && Array.isArray(card.answers) ? card : null;
}

/**
 * The card's heading: an ask's prompt; a confirm's described call ("Charge 40 to order 4411"), or
 * "Confirm charge_card?" where the tool has no words of its own; the other kinds' questions about that call.
 * @param {Record<string, any>} pause @param {Record<string, any> | null} card
 */
function title(pause, card) {
  const kind = card?.kind || pause.kind;
  if (kind === 'ask') return pause.prompt || card?.question || pause.question || '';
  const named = card?.title || pause.title;
  const call = named || pause.tool;
  if (kind === 'confirm' && named && named !== pause.tool) return named;
  return Object.hasOwn(TITLES, kind) ? t(TITLES[kind], { tool: call }) : card?.question || pause.question || kind;
}

/** @param {Record<string, any>} pause @param {Record<string, any> | null} card @returns {Shown[]} */
function argumentsOf(pause, card) {
  const given = Array.isArray(pause.arguments) ? pause.arguments : [];
  if (!card) {
    return given.map((arg) => ({ name: arg.name, label: arg.label || arg.name, shown: show(arg.value), origin: arg.origin ?? '', words: originOf(arg) }));
  }
  return (Array.isArray(card.arguments) ? card.arguments : []).map((arg) => {
    const own = given.find((other) => other.name === arg.name);
    const words = arg.source?.title ? sourceOf(arg.source.title, arg.source, own?.source?.truncated) : isSaid(arg.origin) ? saidText(arg.origin) : originText(arg.origin);
    const shown = arg.shown ?? show(arg.value);
    const { value, edit, unit } = arg;
    return { name: arg.name, label: arg.label || arg.name, shown, origin: own?.origin ?? arg.origin?.key ?? '', words, value, edit, unit, asked: arg.asked?.shown };
  });
}

/** @param {Record<string, any>} pause @param {Record<string, any> | null} card */
function reasonsOf(pause, card) {
  const codes = Array.isArray(pause.reasons) ? pause.reasons : [];
  if (!card) {
    const args = Array.isArray(pause.arguments) ? pause.arguments : [];
    /** @param {string} name */
    const labelOf = (name) => args.find((arg) => arg.name === name)?.label || name;
    return codes.map((code) => ({ code, text: reasonText(code, labelOf) }));
  }
  // The card says the pause's reasons in their order, then any rule that could not be checked.
  return (Array.isArray(card.reasons) ? card.reasons : []).map((words, index) => ({ code: String(codes[index] ?? words?.key ?? ''), text: saidText(words) }));
}

/** The buttons: the card's answers in its styles; a pause without a card, each of its answers. @param {Record<string, any>} pause @param {Record<string, any> | null} card @param {boolean} irreversible */
function answersOf(pause, card, irreversible) {
  /** @param {string} decision @param {string} style */
  const className = (decision, style) => (style === 'primary' && irreversible && decision === 'approve' ? 'irreversible' : STYLES[style] ?? 'quiet');
  if (card) {
    return card.answers.map((/** @type {Record<string, any>} */ answer) => {
      const style = Object.hasOwn(STYLES, answer.style) ? answer.style : 'secondary';
      return { decision: answer.decision, text: saidText(answer.words) || answer.decision, style, className: className(answer.decision, style) };
    });
  }
  return (pause.answers ?? []).map((/** @type {string} */ decision, /** @type {number} */ index) => {
    const style = DANGER.has(decision) ? 'danger' : index ? 'secondary' : 'primary';
    return { decision, text: answerText(pause, decision), style, className: className(decision, style) };
  });
}

/** @param {Record<string, any>} pause @param {string} answer */
function answerText(pause, answer) {
  if (pause.kind === 'delegate' && answer === 'approve') return t('delegateApprove');
  if (pause.irreversible && answer === 'approve') return t('approveIrreversible');
  return answerWords(answer);
}

/** An answer in words, as a button says it ("Approve", "Skip this step"); one without a string as written. @param {string} answer */
export function answerWords(answer) {
  return Object.hasOwn(ANSWER_KEYS, answer) ? t(ANSWER_KEYS[answer]) : answer;
}

/**
 * Where an argument's value came from: an earlier call's result names that call, and shows its value on request.
 * @param {Record<string, any>} arg
 */
function originOf(arg) {
  const source = arg.source;
  return source?.tool ? sourceOf(source.tool, source, source.truncated) : originText(arg.origin);
}

/** "from look_up_order", and what it gave on request. @param {string} call @param {Record<string, any>} source @param {boolean} [truncated] */
function sourceOf(call, source, truncated) {
  const from = t('origin_from', { tool: call });
  if (truncated) return html`${from} <span class="too-large">${t('sourceTooLarge')}</span>`;
  if (!Object.hasOwn(source, 'value')) return from;
  return html`${from} ${resultDisclosure(source.value, t('showSource'))}`;
}
