import { css } from 'lit';
import { elementStyles } from '../../element.styles.js';

export default [
  elementStyles,
  css`
    [part='trace'] {
      padding: calc(var(--_gap) / 2) 0;
    }
    ol {
      list-style: none;
      padding: 0;
    }
    li {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      padding: calc(var(--_gap) / 4) 0;
      border-bottom: 1px solid var(--_line);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
    details.result {
      flex: 1 1 100%;
    }
  `,
];
