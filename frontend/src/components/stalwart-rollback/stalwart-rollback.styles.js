import { css } from 'lit';
import { elementStyles } from '../../element.styles.js';

export default [
  elementStyles,
  css`
    [part='rollback'] {
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    .not-undone .label {
      color: var(--_bad);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
  `,
];
