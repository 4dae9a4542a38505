import { html } from 'lit';
import { StalwartElement } from '../../element.js';
import { t } from '../../strings.js';
import styles from './stalwart-decision.styles.js';

/** The element's own reactive state (the rule shown or not), kept out of its public surface. */
const STATE = { open: { state: true } };

/**
 * @summary A refusal in one sentence, its rule on disclosure.
 * @tag stalwart-decision
 *
 * @csspart decision - The refusal: the "Not done" label, the sentence and the disclosure button.
 * @csspart rule - The rule behind the refusal, shown when the disclosure is open.
 */
export class StalwartDecision extends StalwartElement {
  static get styles() {
    return styles;
  }

  static get properties() {
    return {
      /** The rule that refused, shown on disclosure; without one there is no disclosure. */
      rule: { type: String },
      /** The refusal, in one sentence. */
      sentence: { type: String },
      ...STATE,
    };
  }

  constructor() {
    super();
    this.rule = '';
    this.sentence = '';
    /** @internal */
    this.open = false;
  }

  render() {
    return html`<div part="decision">
      <p><span class="label refused">${t('refused')}</span> <span class="sentence">${this.sentence}</span></p>
      ${this.rule
        ? html`<button type="button" class="quiet" aria-expanded=${this.open ? 'true' : 'false'} aria-controls="rule" @click=${this.toggle}>${t('showRule')}</button>
            <div id="rule" part="rule" ?hidden=${!this.open}>
              <span class="label">${t('rule')}</span> <span class="rule">${this.rule}</span>
            </div>`
        : ''}
    </div>`;
  }

  /** @private */
  toggle() {
    this.open = !this.open;
  }
}
