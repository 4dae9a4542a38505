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
    [part='thread'] {
      font-family: ui-monospace, monospace;
      overflow-wrap: anywhere;
    }
    [part='last-words'] q {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    [part='approvals'] {
      color: var(--_muted);
    }
    [part='more'] {
      align-self: flex-start;
    }
  `,
];
