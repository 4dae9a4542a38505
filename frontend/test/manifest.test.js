import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ELEMENTS, THEME, elementsFromChapter } from './chapter.js';
import { ELEMENTS as BEYOND, PARTS } from './beyond.js';
import { nestedParts } from '../src/parts.js';

const manifest = JSON.parse(readFileSync(new URL('../custom-elements.json', import.meta.url), 'utf8'));
const declarations = manifest.modules.flatMap((module) => module.declarations ?? []);
const element = (tag) => declarations.find((declaration) => declaration.tagName === tag);
const names = (items) => (items ?? []).map((item) => item.name).sort();
const sorted = (items) => [...items].sort();

test('the copied element table is the chapter\'s', (t) => {
  const chapter = elementsFromChapter();
  if (!chapter) return t.skip('the chapter is not beside the repository (../shared/spec)');
  assert.deepEqual(ELEMENTS, chapter);
});

for (const [tag, row] of Object.entries({ ...ELEMENTS, ...BEYOND })) {
  test(`custom-elements.json lists <${tag}> exactly as the element table does`, () => {
    const declaration = element(tag);
    assert.ok(declaration, `no declaration for ${tag}: run npm run manifest`);
    const publicFields = (declaration.members ?? []).filter((m) => m.kind === 'field' && !m.static && (m.privacy ?? 'public') === 'public');
    assert.deepEqual(names(declaration.attributes), sorted(row.attributes), 'attributes');
    assert.deepEqual(
      publicFields.filter((field) => !field.attribute).map((field) => field.name).sort(),
      sorted(row.properties),
      'properties (public fields without an attribute)',
    );
    assert.deepEqual(
      publicFields.filter((field) => field.attribute).map((field) => field.attribute).sort(),
      sorted(row.attributes),
      'every attribute is a property too',
    );
    assert.deepEqual(names(declaration.events), sorted(row.events), 'events');
    assert.deepEqual(names(declaration.cssParts), sorted([...row.parts, ...(PARTS[tag] ?? [])]), 'CSS parts (the chapter\'s, and those the package adds)');
    assert.deepEqual(names(declaration.slots), sorted(row.slots), 'slots');
  });

  test(`custom-elements.json gives <${tag}> the eleven custom properties with their light defaults`, () => {
    const declared = Object.fromEntries((element(tag).cssProperties ?? []).map((p) => [p.name, p.default]));
    assert.deepEqual(declared, THEME.light);
  });
}

test('custom-elements.json defines the seven tags from the package entry', () => {
  const index = manifest.modules.find((module) => module.path === 'src/index.js');
  const defined = index.exports.filter((e) => e.kind === 'custom-element-definition').map((e) => e.name).sort();
  assert.deepEqual(defined, Object.keys({ ...ELEMENTS, ...BEYOND }).sort());
});

test('the parts an element exports for those it nests are every part their manifest lists', () => {
  for (const [tag, parts] of Object.entries(nestedParts)) assert.deepEqual(sorted(parts), names(element(tag).cssParts), tag);
});
