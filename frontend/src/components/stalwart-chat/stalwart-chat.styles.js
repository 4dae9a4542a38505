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
    [part='log'] {
      flex: 1 1 auto;
      min-height: 0;
      overflow-y: auto;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    .turn,
    .reply {
      max-width: 85%;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-radius: var(--_radius);
      border: 1px solid var(--_line);
    }
    .turn {
      align-self: flex-end;
      border-color: var(--_accent);
    }
    .reply {
      align-self: flex-start;
    }
    .text {
      margin: 0;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .results {
      list-style: none;
      margin: calc(var(--_gap) / 2) 0 0;
      padding: 0;
    }
    .results .label {
      font-family: ui-monospace, monospace;
    }
    .record {
      align-self: stretch;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-inline-start: 4px solid var(--_accent);
    }
    .record p {
      margin: 0;
    }
    .record .what {
      font-weight: 600;
    }
    .about p {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    .examples {
      list-style: none;
      padding: 0;
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
    }
    textarea:disabled {
      opacity: 0.6;
    }
    [part='thumbs'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      margin-top: calc(var(--_gap) / 2);
    }
    [part='status'].bad {
      color: var(--_bad);
    }
    [part='composer'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      align-items: flex-end;
    }
    textarea {
      flex: 1 1 auto;
      resize: vertical;
    }
    [part='thumbs-notice'] {
      margin: 0;
    }
    summary {
      cursor: pointer;
      color: var(--_accent);
    }
    /* The disclosure's summary names the history: its own heading would say it twice. */
    stalwart-history::part(history-title) {
      display: none;
    }
    /* Under its summary, indented as far as the summary's words, so the list reads as the disclosure's, not the log's. */
    stalwart-history {
      padding: calc(var(--_gap) / 2) 0 0 calc(var(--_gap) * 1.25);
    }
  `,
];
