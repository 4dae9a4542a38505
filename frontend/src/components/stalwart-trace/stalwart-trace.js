import { html } from 'lit';
import { StalwartElement } from '../../element.js';
import { resultDisclosure } from '../../result.js';
import { t } from '../../strings.js';
import styles from './stalwart-trace.styles.js';

/**
 * @summary A thread's steps.
 * @tag stalwart-trace
 *
 * @csspart trace - The whole trace: its title and the list of steps.
 */
export class StalwartTrace extends StalwartElement {
  static get styles() {
    return styles;
  }

  static get properties() {
    return {
      /**
       * The thread's stream events (or a reply's steps); those with a tool are shown as steps,
       * each as `{step | key, call?, tool, status, result?}`, a result as a short line that opens to the whole.
       * @type {Array<Record<string, any>>}
       */
      events: { attribute: false },
    };
  }

  constructor() {
    super();
    /** @type {Array<Record<string, any>>} */
    this.events = [];
  }

  render() {
    const steps = (this.events ?? []).filter((event) => event && event.tool && (event.type ?? 'step') === 'step');
    return html`<section part="trace" aria-labelledby="title">
      <h2 id="title">${t('traceTitle')}</h2>
      <ol>
        ${steps.map(
          (step) => html`<li>
            <span class="step">${t('step', { step: position(step) })}</span>
            <span class="tool">${step.tool}</span>
            <span class="status muted">${step.status ?? ''}</span>
            ${step.result === null || step.result === undefined ? '' : resultDisclosure(step.result)}
          </li>`,
        )}
      </ol>
    </section>`;
  }
}

/** `2`, or `2.1` for the first call a team's step 2 made. @param {Record<string, any>} step */
function position(step) {
  if (step.key != null) return step.key;
  return step.call != null ? `${step.step}.${step.call}` : step.step;
}
