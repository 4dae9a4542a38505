// The chapter's tables: read from the spec beside the repository when it is
// there (../shared/spec), and as copied from it here, so the tests also run
// without it.  Where both exist, a test checks the copy against the chapter.
import { existsSync, readFileSync } from 'node:fs';

export const SPEC = new URL('../../../shared/spec/people-in-the-loop.md', import.meta.url);

/** The rows under the tab-separated header line `header`, or null without the spec. */
export function table(header) {
  if (!existsSync(SPEC)) return null;
  const lines = readFileSync(SPEC, 'utf8').split('\n');
  const start = lines.indexOf(header);
  if (start < 0) throw new Error(`the chapter has no table headed ${JSON.stringify(header)}`);
  const rows = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.includes('\t')) break;
    rows.push(line.split('\t'));
  }
  return rows;
}

const list = (cell) => (cell === '—' ? [] : cell.split(',').map((item) => item.trim()));

/** The element table, as {tag: {attributes, properties, events, parts, slots}}. */
export function elementsFromChapter() {
  const rows = table('Element\tShows\tAttributes\tProperties\tEvents\tCSS parts\tSlots');
  if (!rows) return null;
  return Object.fromEntries(
    rows.map(([element, , attributes, properties, events, parts, slots]) => [
      element.replace(/[<>]/g, ''),
      { attributes: list(attributes), properties: list(properties), events: list(events), parts: list(parts), slots: list(slots) },
    ]),
  );
}

/** The custom property table, as {light: {name: value}, dark: {name: value}}. */
export function themeFromChapter() {
  const rows = table('Custom property\tLight\tDark');
  if (!rows) return null;
  return {
    light: Object.fromEntries(rows.map(([name, light]) => [name, light])),
    dark: Object.fromEntries(rows.map(([name, , dark]) => [name, dark])),
  };
}

/** The shipped strings, as {key: text}. */
export function stringsFromChapter() {
  const rows = table('Key\tShipped text');
  return rows && Object.fromEntries(rows);
}

/** The element table as the chapter has it. */
export const ELEMENTS = {
  'stalwart-chat': {
    attributes: ['base', 'theme', 'thread', 'thumbs'],
    properties: ['eventSource', 'fetcher'],
    events: [],
    parts: ['thumbs', 'thumbs-notice', 'log', 'status', 'steps', 'composer', 'citations', 'sources'],
    slots: ['header', 'footer'],
  },
  'stalwart-confirm': {
    attributes: ['theme'],
    properties: ['interrupt'],
    events: ['stalwart-decision'],
    parts: ['confirm', 'turn', 'arguments', 'reasons', 'irreversible', 'choices'],
    slots: [],
  },
  'stalwart-decision': { attributes: ['rule', 'sentence', 'theme'], properties: [], events: [], parts: ['decision', 'rule'], slots: [] },
  'stalwart-rollback': { attributes: ['theme'], properties: ['report'], events: [], parts: ['rollback'], slots: [] },
  'stalwart-trace': { attributes: ['theme'], properties: ['events'], events: [], parts: ['trace'], slots: [] },
};

/** The custom properties as the chapter has them. */
export const THEME = {
  light: {
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
  },
  dark: {
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
  },
};
