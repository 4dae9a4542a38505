import { css } from 'lit';
import { elementStyles } from '../../element.styles.js';

export default [
  elementStyles,
  css`
    :host {
      padding: var(--_gap);
    }
    .bar {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: calc(var(--_gap) / 2);
      margin-bottom: calc(var(--_gap) / 2);
    }
    [part='history-title'] {
      margin: 0;
    }
    [part='history-status']:empty {
      display: none;
    }
    [part='history-status'].bad {
      color: var(--_bad);
    }
    /* The record failed its check: said first, in the colour of errors, before anything in it is read. */
    [part='history-broken'] {
      color: var(--_bad);
      font-weight: 600;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border: 1px solid var(--_bad);
      border-inline-start-width: 4px;
      border-radius: var(--_radius);
    }
    [part='history-list'] {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    [part='history-entry'] {
      padding: calc(var(--_gap) / 2) 0 calc(var(--_gap) / 2) var(--_gap);
      border-inline-start: 4px solid var(--_accent);
      overflow-wrap: anywhere;
    }
    [part='history-entry'] + [part='history-entry'] {
      margin-top: calc(var(--_gap) / 2);
    }
    [part='history-entry'] p,
    [part='history-entry'] ul {
      margin: calc(var(--_gap) / 4) 0 0;
    }
    [part='history-what'] {
      margin: 0;
    }
    /* A time, a channel or a wait is not broken across lines: "waited 42 / sec" reads as two things. */
    [part='history-when'] > * {
      white-space: nowrap;
    }
    [part='history-approvals'] {
      font-weight: 600;
    }
    [part='history-changes'] ul {
      padding-inline-start: calc(var(--_gap) * 1.5);
    }
  `,
];
