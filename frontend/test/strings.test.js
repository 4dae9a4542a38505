import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { StringsController, format, setStrings, shipped, strings, t as text } from '../src/strings.js';
import { STRINGS as INBOX } from './beyond.js';
import { stringsFromChapter } from './chapter.js';

test('the shipped strings are the chapter\'s table, key for key and word for word, and those beyond it', (t) => {
  const fromInbox = Object.fromEntries(Object.keys(INBOX).map((key) => [key, shipped[key]]));
  assert.deepEqual(fromInbox, INBOX);
  const chapter = stringsFromChapter();
  if (!chapter) return t.skip('the chapter is not beside the repository (../shared/spec): the table was not compared');
  assert.deepEqual(Object.fromEntries(Object.entries(shipped).filter(([key]) => !Object.hasOwn(INBOX, key))), chapter);
});

test('format fills each {name} and leaves unknown names as written', () => {
  assert.equal(format('Confirm {tool}?', { tool: 'x' }), 'Confirm x?');
  assert.equal(format('Step {step}', { step: 2 }), 'Step 2');
  assert.equal(format('Confirm {tool}?', {}), 'Confirm {tool}?');
  assert.equal(format('Something went wrong: {message}', { message: '{tool}' }), 'Something went wrong: {tool}');
});

test('setStrings replaces strings and re-renders every live element', () => {
  const renders = [];
  const host = { addController: (controller) => (host.controller = controller), requestUpdate: () => renders.push('again') };
  new StringsController(host);
  host.controller.hostConnected();
  try {
    setStrings({ approve: 'Aprovar', skip: 'Pular este passo' });
    assert.equal(strings.approve, 'Aprovar');
    assert.equal(text('skip'), 'Pular este passo');
    assert.equal(text('cancelAll'), shipped.cancelAll);
    assert.deepEqual(renders, ['again']);
    host.controller.hostDisconnected();
    setStrings({ approve: 'Approve' });
    assert.deepEqual(renders, ['again'], 'a disconnected element is not kept');
  } finally {
    setStrings(shipped);
  }
  assert.deepEqual({ ...strings }, { ...shipped });
});

test('setStrings refuses a string that is not one', () => {
  assert.throws(() => setStrings({ approve: 42 }), TypeError);
});

test('t shows a key the table lacks as itself, never an inherited property', () => {
  assert.equal(text('constructor'), 'constructor');
  assert.equal(text('confirmTitle', { tool: 'charge_card' }), 'Confirm charge_card?');
});

test('the types name every shipped string', () => {
  const types = readFileSync(new URL('../types/index.d.ts', import.meta.url), 'utf8');
  const block = types.slice(types.indexOf('export type StringKey'), types.indexOf('export type Strings'));
  const typed = new Set([...block.matchAll(/'(\w+)'/g)].map((match) => match[1]));
  assert.deepEqual(Object.keys(shipped).filter((key) => !typed.has(key)), []);
});
