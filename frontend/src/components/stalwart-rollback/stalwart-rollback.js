import { html } from 'lit';
import { StalwartElement } from '../../element.js';
import { t } from '../../strings.js';
import styles from './stalwart-rollback.styles.js';

/**
 * @summary What a run undid, and what it could not.
 * @tag stalwart-rollback
 *
 * @csspart rollback - The report: its title, what was undone and what could not be.
 */
export class StalwartRollback extends StalwartElement {
  static get styles() {
    return styles;
  }

  static get properties() {
    return {
      /**
       * A rollback report: `{reason, status, undone: [{step, tool, undo, arguments, by}],
       * not_undone: [{step, tool, undo, arguments, why}]}`.
       * @type {Record<string, any> | null}
       */
      report: { attribute: false },
    };
  }

  constructor() {
    super();
    /** @type {Record<string, any> | null} */
    this.report = null;
  }

  render() {
    const undone = this.report?.undone ?? [];
    const notUndone = this.report?.not_undone ?? [];
    return html`<section part="rollback" aria-labelledby="title" ?hidden=${!this.report}>
      <h2 id="title">${t('rollbackTitle')}</h2>
      ${undone.length
        ? html`<ul class="undone">
            ${undone.map((line) => item(t('undone'), line, line.by === 'person' ? line.by : ''))}
          </ul>`
        : ''}
      ${notUndone.length
        ? html`<ul class="not-undone">
            ${notUndone.map((line) => item(t('notUndoable'), line, line.why))}
          </ul>`
        : ''}
    </section>`;
  }
}

/** @param {string} label @param {Record<string, any>} line @param {string} [note] */
function item(label, line, note) {
  return html`<li>
    <span class="label">${label}</span> <span class="tool">${line.tool}</span>
    ${note ? html` <span class="muted">(${note})</span>` : ''}
  </li>`;
}
