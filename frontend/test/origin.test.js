import assert from 'node:assert/strict';
import { test } from 'node:test';
import { originKey, originText } from '../src/origin.js';

test('each origin maps to its string', () => {
  assert.equal(originKey('typed'), 'origin_typed');
  assert.equal(originKey('reply'), 'origin_reply');
  assert.equal(originKey('context'), 'origin_context');
  assert.equal(originKey('computed'), 'origin_computed');
  assert.equal(originKey('model'), 'origin_model');
  assert.equal(originKey('result:2'), 'origin_result');
  assert.equal(originKey('agent'), 'origin_agent');
});

test('origins are said in words; one the table lacks is shown as given', () => {
  assert.equal(originText('typed'), 'you typed it');
  assert.equal(originText('model'), 'the assistant wrote it');
  assert.equal(originText('result:read_order'), 'from an earlier step');
  assert.equal(originText('untrusted:read_inbox'), 'untrusted:read_inbox');
  assert.equal(originText('constructor'), 'constructor');
});
