import { css, unsafeCSS } from 'lit';
import { themeCSS } from './theme.js';

/** The theme and the rules every element's shadow root starts from. */
export const elementStyles = [
  unsafeCSS(themeCSS),
  css`
    :host {
      display: block;
      box-sizing: border-box;
      color: var(--_fg);
      background: var(--_bg);
      font-family: var(--_font);
      line-height: 1.4;
    }
    :host([hidden]) {
      display: none;
    }
    *,
    *::before,
    *::after {
      box-sizing: inherit;
    }
    [hidden] {
      display: none !important;
    }
    h2,
    h3 {
      margin: 0 0 calc(var(--_gap) / 2);
      font-size: 1em;
      font-weight: 600;
    }
    p,
    ul,
    ol,
    dl {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    ul,
    ol {
      padding-inline-start: calc(var(--_gap) * 1.5);
    }
    button {
      font: inherit;
      color: var(--_accent-fg);
      background: var(--_accent);
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 3) var(--_gap);
      cursor: pointer;
    }
    button.quiet {
      color: var(--_accent);
      background: var(--_bg);
    }
    button[aria-pressed='true'] {
      color: var(--_accent-fg);
      background: var(--_accent);
    }
    /* The approval of what cannot be undone, on a card and in the inbox's summary. */
    button.irreversible {
      background: var(--_warn);
      border-color: var(--_warn);
    }
    button:disabled {
      cursor: default;
      opacity: 0.6;
    }
    input,
    textarea {
      font: inherit;
      color: var(--_fg);
      background: var(--_bg);
      border: 1px solid var(--_muted);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 2);
    }
    :focus-visible {
      outline: 2px solid var(--_accent);
      outline-offset: 2px;
    }
    .muted {
      color: var(--_muted);
    }
    .label {
      font-weight: 600;
    }
    details.result summary {
      cursor: pointer;
      overflow-wrap: anywhere;
    }
    details.result pre {
      margin: calc(var(--_gap) / 4) 0 0;
      padding: calc(var(--_gap) / 2);
      max-height: 16em;
      overflow: auto;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      font-family: ui-monospace, monospace;
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
    }
  `,
];
