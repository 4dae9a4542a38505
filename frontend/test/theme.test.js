import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dark, light, themeCSS } from '../src/theme.js';
import { THEME, themeFromChapter } from './chapter.js';

test('the copied custom property table is the chapter\'s', (t) => {
  const chapter = themeFromChapter();
  if (!chapter) return t.skip('the chapter is not beside the repository (../shared/spec)');
  assert.deepEqual(THEME, chapter);
});

test('theme.js has the chapter\'s light and dark defaults', () => {
  assert.deepEqual({ ...light }, THEME.light);
  assert.deepEqual({ ...dark }, THEME.dark);
});

test('each default is a fallback, so a value set on any ancestor reaches nested elements', () => {
  for (const [name, value] of Object.entries(light)) {
    assert.ok(themeCSS.includes(`${name.replace('--stalwart-', '--_')}: var(${name}, ${value});`), name);
  }
  for (const [name, value] of Object.entries(dark)) {
    assert.ok(themeCSS.includes(`var(${name}, ${value})`), name);
  }
});

test('theme="dark" and theme="light" fix the scheme; otherwise prefers-color-scheme chooses', () => {
  assert.match(themeCSS, /:host\(\[theme="dark"\]\)/);
  assert.match(themeCSS, /@media \(prefers-color-scheme: dark\) \{ :host\(:not\(\[theme="light"\]\)\)/);
});

/** WCAG relative luminance and contrast ratio. */
function contrast(a, b) {
  const lum = (hex) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

for (const [scheme, table] of Object.entries({ light, dark })) {
  test(`the ${scheme} defaults pass WCAG AA for every pair of text and background the elements draw`, () => {
    const bg = table['--stalwart-bg'];
    const pairs = {
      'fg on bg': [table['--stalwart-fg'], bg],
      'muted on bg': [table['--stalwart-muted'], bg],
      'accent on bg': [table['--stalwart-accent'], bg],
      'accent-fg on accent': [table['--stalwart-accent-fg'], table['--stalwart-accent']],
      'warn on bg': [table['--stalwart-warn'], bg],
      'bad on bg': [table['--stalwart-bad'], bg],
    };
    for (const [pair, [text, back]] of Object.entries(pairs)) {
      assert.ok(contrast(text, back) >= 4.5, `${pair}: ${contrast(text, back).toFixed(2)}`);
    }
    // Control borders (inputs) are drawn in muted: 3:1 against the background for non-text contrast.
    assert.ok(contrast(table['--stalwart-muted'], bg) >= 3);
  });
}
