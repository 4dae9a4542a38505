/**
 * The custom properties every element is drawn with, and their light and dark defaults.
 *
 * Each element reads them through a private twin (`--_bg` for `--stalwart-bg`)
 * whose fallback is the default, so a value set on any ancestor -- the page,
 * `stalwart-chat`, `:root` -- reaches every element inside, nested ones too.
 * `theme="light"` or `theme="dark"` fixes the defaults; with neither, the
 * person's `prefers-color-scheme` chooses.
 */

/** @type {Readonly<Record<string, string>>} */
export const light = Object.freeze({
  '--stalwart-bg': '#ffffff',
  '--stalwart-fg': '#1a1a1a',
  '--stalwart-muted': '#595959',
  '--stalwart-line': '#d0d0d0',
  '--stalwart-accent': '#0b57d0',
  '--stalwart-accent-fg': '#ffffff',
  '--stalwart-warn': '#8a4b00',
  '--stalwart-bad': '#b3261e',
  '--stalwart-radius': '8px',
  '--stalwart-gap': '12px',
  '--stalwart-font': 'system-ui, sans-serif',
});

/** @type {Readonly<Record<string, string>>} */
export const dark = Object.freeze({
  '--stalwart-bg': '#121212',
  '--stalwart-fg': '#f1f1f1',
  '--stalwart-muted': '#bdbdbd',
  '--stalwart-line': '#3c3c3c',
  '--stalwart-accent': '#8ab4f8',
  '--stalwart-accent-fg': '#0b0b0b',
  '--stalwart-warn': '#ffb74d',
  '--stalwart-bad': '#f28b82',
  '--stalwart-radius': '8px',
  '--stalwart-gap': '12px',
  '--stalwart-font': 'system-ui, sans-serif',
});

/** @param {Readonly<Record<string, string>>} table @param {string} scheme */
function declarations(table, scheme) {
  const lines = Object.entries(table).map(([name, value]) => `${name.replace('--stalwart-', '--_')}: var(${name}, ${value});`);
  return `color-scheme: ${scheme}; ${lines.join(' ')}`;
}

/** The `:host` rules that set the private twins, as CSS text. */
export const themeCSS = `
:host { ${declarations(light, 'light')} }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { ${declarations(dark, 'dark')} } }
:host([theme="dark"]) { ${declarations(dark, 'dark')} }
`;
