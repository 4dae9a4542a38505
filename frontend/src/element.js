import { LitElement } from 'lit';
import { StringsController } from './strings.js';

/**
 * What every stalwart element shares: the `theme` attribute, the custom
 * properties it is drawn with, and re-rendering when `setStrings()` is called.
 *
 * @cssprop [--stalwart-bg=#ffffff] Background (dark: #121212).
 * @cssprop [--stalwart-fg=#1a1a1a] Text (dark: #f1f1f1).
 * @cssprop [--stalwart-muted=#595959] Secondary text and control borders (dark: #bdbdbd).
 * @cssprop [--stalwart-line=#d0d0d0] Separators (dark: #3c3c3c).
 * @cssprop [--stalwart-accent=#0b57d0] Buttons, links and the focus ring (dark: #8ab4f8).
 * @cssprop [--stalwart-accent-fg=#ffffff] Text on the accent (dark: #0b0b0b).
 * @cssprop [--stalwart-warn=#8a4b00] The irreversible warning (dark: #ffb74d).
 * @cssprop [--stalwart-bad=#b3261e] Refusals and errors (dark: #f28b82).
 * @cssprop [--stalwart-radius=8px] Corner radius.
 * @cssprop [--stalwart-gap=12px] Spacing unit.
 * @cssprop [--stalwart-font=system-ui, sans-serif] Font family.
 */
export class StalwartElement extends LitElement {
  static get properties() {
    return {
      /** "light" or "dark" fixes the colours; with neither, the person's setting chooses. */
      theme: { type: String, reflect: true },
    };
  }

  constructor() {
    super();
    new StringsController(this);
  }
}
