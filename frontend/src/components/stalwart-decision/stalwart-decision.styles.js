import { css } from 'lit';
import { elementStyles } from '../../element.styles.js';

export default [
  elementStyles,
  css`
    [part='decision'] {
      border-inline-start: 4px solid var(--_bad);
      padding: calc(var(--_gap) / 2) var(--_gap);
    }
    .refused {
      color: var(--_bad);
    }
    [part='rule'] {
      margin-top: calc(var(--_gap) / 2);
    }
    .rule {
      font-family: ui-monospace, monospace;
      overflow-wrap: anywhere;
    }
  `,
];
