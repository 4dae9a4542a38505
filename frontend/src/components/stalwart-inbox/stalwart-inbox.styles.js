import { css } from 'lit';
import { elementStyles } from '../../element.styles.js';

export default [
  elementStyles,
  css`
    :host {
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
      padding: var(--_gap);
    }
    .bar {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: calc(var(--_gap) / 2);
    }
    [part='title'],
    [part='empty'] {
      margin: 0;
    }
    [part='status'].bad,
    [part='row-error'] {
      color: var(--_bad);
    }
    [part='list'] {
      list-style: none;
      margin: 0;
      padding: 0;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    [part='row'] {
      display: flex;
      flex-direction: column;
      gap: calc(var(--_gap) / 2);
      padding: var(--_gap);
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
    }
    [part='row'] p {
      margin: 0;
    }
    /* The thread's words place the call in its conversation; the card's title is what the eye should land on. */
    [part='thread'] {
      color: var(--_muted);
      overflow-wrap: anywhere;
    }
    /* The row is the card's box: no second border inside it. */
    stalwart-confirm::part(confirm) {
      border: none;
      padding: 0;
    }
    [part='last-words'] q {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    [part='approvals'] {
      color: var(--_muted);
    }
    [part='filters'] {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2) var(--_gap);
    }
    .filter {
      display: inline-flex;
      align-items: center;
      gap: calc(var(--_gap) / 2);
    }
    .filter label {
      font-weight: 600;
    }
    select {
      font: inherit;
      color: var(--_fg);
      background: var(--_bg);
      border: 1px solid var(--_muted);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
    }
    [part='status'] .line {
      display: block;
    }
    /* What the last answer did stays in sight while the person works down a long list. */
    [part='status'].notice {
      position: sticky;
      top: 0;
      z-index: 1;
      background: var(--_bg);
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-inline-start: 4px solid var(--_accent);
    }
    [part='status'].notice .line:first-child {
      font-weight: 600;
    }
    [part='status'] .bad {
      color: var(--_bad);
    }
    [part='more'] {
      align-self: flex-start;
    }
    /* Several decided at once: the selection's bar, then the summary, kept in sight while the list scrolls. */
    [part='batch'],
    [part='batch-summary'] {
      position: sticky;
      top: 0;
      z-index: 2;
      background: var(--_bg);
      padding: calc(var(--_gap) / 2) var(--_gap);
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
    }
    [part='batch'] p,
    [part='batch-summary'] p {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    [part='batch-total'] {
      font-weight: 600;
    }
    /* As on the card: what cannot be undone is said first, and its approval is drawn in the warning colour. */
    [part='batch-summary'] .irreversible {
      color: var(--_warn);
      font-weight: 600;
      padding-inline-start: calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_warn);
    }
    /* A selected row stands out from the others, so the selection reads at a glance down a long list. */
    [part='row'][data-selected] {
      border-color: var(--_accent);
      box-shadow: 0 0 0 1px var(--_accent);
    }
    .buttons {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
    }
    [part='select'] {
      align-self: flex-start;
      display: inline-flex;
      align-items: center;
      gap: calc(var(--_gap) / 3);
      cursor: pointer;
    }
    [part='select'] input {
      width: 1.2em;
      height: 1.2em;
      margin: 0;
      accent-color: var(--_accent);
    }
  `,
];
