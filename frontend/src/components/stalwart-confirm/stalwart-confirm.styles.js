import { css } from 'lit';
import { elementStyles } from '../../element.styles.js';

export default [
  elementStyles,
  css`
    [part='confirm'] {
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    [part='turn'] {
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: var(--_gap);
      border-inline-start: 4px solid var(--_line);
    }
    dl {
      display: grid;
      /* Where a value came from sits beside it, not across a wide screen. */
      grid-template-columns: max-content auto 1fr;
      gap: calc(var(--_gap) / 4) var(--_gap);
      align-items: baseline;
    }
    dt {
      font-weight: 600;
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    .value,
    .tool {
      font-family: ui-monospace, monospace;
    }
    [part='irreversible'] {
      color: var(--_warn);
      font-weight: 600;
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_warn);
    }
    /* Destructive: the refusal colour, outlined, never the accent's filled look of the answer that goes on. */
    button.danger {
      color: var(--_bad);
      background: var(--_bg);
      border-color: var(--_bad);
    }
    [part='asked'],
    [part='deciders'] {
      margin: 0 0 calc(var(--_gap) / 4);
    }
    [part='waits-for'] {
      font-weight: 600;
      margin: calc(var(--_gap) / 2) 0;
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_accent);
    }
    /* The deadline: quiet until less than an hour is left, then in the warning colour. */
    [part='deadline'] {
      margin: calc(var(--_gap) / 2) 0;
      padding-inline-start: calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_line);
    }
    [part='deadline'][data-urgent] {
      color: var(--_warn);
      font-weight: 600;
      border-inline-start-color: var(--_warn);
    }
    [part='deadline'] + [part='escalation'] {
      margin-top: calc(var(--_gap) / -4);
    }
    [part='escalation'] {
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: calc(var(--_gap) / 2 + 4px);
    }
    [part='expired'] {
      font-weight: 600;
      margin: calc(var(--_gap) / 2) 0 0;
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_muted);
    }
    [data-expired] {
      border-color: var(--_line);
    }
    dt {
      grid-column: 1;
    }
    .too-large {
      font-style: italic;
    }
    /* A value the reader may change: its input, its unit, and what was asked, on one line where they fit. */
    [part='edit-input'] {
      width: 9em;
      max-width: 100%;
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
    }
    [part='edit-input'][type='text'] {
      width: 100%;
    }
    [part='edit-input'][aria-invalid='true'] {
      border: 2px solid var(--_bad);
    }
    /* What was asked before a change, in the warning colour: a value that changed is the one to read twice. */
    [part='asked-value'] {
      color: var(--_warn);
      font-family: var(--_font);
      white-space: nowrap;
    }
    [part='edit-error'] {
      display: block;
      color: var(--_bad);
      font-family: var(--_font);
      margin-top: calc(var(--_gap) / 4);
    }
    [part='edit-reset'] {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    [part='choices'] {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      margin: 0;
    }
    [part='choices'] label {
      flex: 1 1 100%;
      font-weight: 600;
    }
    [part='choices'] input {
      flex: 1 1 12em;
    }
    @media (max-width: 480px) {
      dl {
        grid-template-columns: max-content auto;
      }
      dd.origin {
        grid-column: 2;
      }
    }
  `,
];
