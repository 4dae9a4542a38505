// Issue 27 in a DOM (happy-dom): changing a call's values before approving it.  The card's editable arguments as
// inputs, the exact `edits` an approval sends (only what changed, typed as JSON), putting the asked values back,
// input that cannot be approved, "asked ..." beside a value someone changed, and the records of such approvals.
import { window } from './dom.js';
import { $, $$, words, mount, violations } from './page.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, test } from 'node:test';
import { FakeEventSource, fakeFetch, settle } from './fakes.js';
import { recordOf, recordText } from '../src/record.js';
import * as source from '../src/strings.js';

const { setStrings, shipped } = await import('../dist/agent-ui.js');
window.eval(readFileSync(new URL('../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8'));

const AT = '2026-12-01T16:23:37.789Z';
const said = (key, values = {}) => ({ key, values });
const ANSWERS = [
  { decision: 'approve', words: said('approve'), style: 'primary' },
  { decision: 'skip', words: said('skip'), style: 'secondary' },
  { decision: 'cancel_all', words: said('cancelAll'), style: 'danger' },
];

/** The shop's charge as its owner sees it, the amount (and, for the tests, a count, a note and a flag) editable. */
function charge(extra = {}) {
  const card = {
    kind: 'confirm', title: 'Charge 150.00 EUR to order 4411', question: 'Charge 150.00 EUR to order 4411?', irreversible: false,
    arguments: [
      { name: 'amount', label: 'Amount', value: 150, shown: '150.00 EUR', origin: said('origin_typed'), edit: 'number', unit: 'EUR' },
      { name: 'order_id', label: 'Order', value: '4411', shown: '4411', origin: said('origin_typed') },
    ],
    reasons: [said('reason_write')], deciders: null, asked: said('askedByYou', { when: AT }), answers: ANSWERS, waits_for: null,
    ...extra.card,
  };
  return {
    id: 'p_1.aaa', kind: 'confirm', thread: 'u-17', run: 'r_1', step: 1, tool: 'charge_card', label: 'Charge a card', title: card.title,
    question: card.question, arguments: [{ name: 'amount', value: 150, origin: 'typed' }, { name: 'order_id', value: '4411', origin: 'typed' }],
    reasons: ['write'], irreversible: false, answers: ['approve', 'skip', 'cancel_all'], token: 'tok-1', created_at: AT, editable: ['amount'],
    ...extra, card,
  };
}
const MORE = [
  { name: 'count', label: 'Count', value: 2, shown: '2', origin: said('origin_typed'), edit: 'integer' },
  { name: 'note', label: 'Note', value: 'thanks', shown: 'thanks', origin: said('origin_typed'), edit: 'string' },
  { name: 'notify', label: 'Tell the customer', value: false, shown: 'false', origin: said('origin_typed'), edit: 'boolean' },
];

const input = (el, name) => $(el, `[part=edit-input][name=${name}]`);
const approve = (el) => $(el, 'button[data-answer=approve]');
async function type(el, name, value) {
  const box = input(el, name);
  if (box.type === 'checkbox') box.checked = value;
  else box.value = value;
  box.dispatchEvent(new window.Event('input', { bubbles: true }));
  await settle(el);
}
function heard(el) {
  const details = [];
  el.addEventListener('stalwart-decision', (event) => details.push(event.detail));
  return details;
}

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  FakeEventSource.opened = [];
  document.title = 'Edit';
  document.documentElement.lang = 'en';
});
afterEach(() => {
  document.body.innerHTML = '';
  setStrings(shipped);
});

// The card

test('an argument the card marks editable is a labelled input in its kind, its unit beside it; the others stay values', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge() });
  const amount = input(el, 'amount');
  assert.equal(amount.type, 'number');
  assert.equal(amount.getAttribute('step'), 'any');
  assert.equal(amount.value, '150');
  assert.equal(words(el.shadowRoot.querySelector(`label[for=${amount.id}]`)), 'Amount', 'named by the argument\'s label');
  assert.equal(words(amount.parentElement.querySelector('.unit')), 'EUR');
  assert.deepEqual($$(el, 'dd.value').map(words), ['EUR', '4411'], 'the order is shown, not typed');
  assert.equal($(el, '[part=asked-value]'), null, 'nothing is said of what was asked until something changes');
  assert.equal($(el, '[part=edit-reset]'), null);
  assert.equal(words(approve(el)), 'Approve');
  assert.deepEqual(await violations(), []);
});

test('a changed value: "asked ..." beside it, Approve says so, and approving sends only what changed, as a number', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge() });
  const details = heard(el);
  await type(el, 'amount', '120');
  assert.equal(words($(el, '[part=asked-value]')), 'asked 150.00 EUR');
  assert.equal(words(approve(el)), 'Approve with changes');
  assert.ok(!approve(el).disabled);
  assert.deepEqual(await violations(), []);
  approve(el).click();
  await settle(el);
  assert.deepEqual(details.map(({ decision, edits }) => [decision, edits]), [['approve', { amount: 120 }]]);
  assert.strictEqual(details[0].edits.amount, 120, 'a number, not the text "120"');
  assert.ok(input(el, 'amount').disabled, 'once answered, nothing more is typed');
});

test('each kind of input sends its JSON type: integer, text, true/false; a value typed back to what was asked is no change', async () => {
  const card = { arguments: [...charge().card.arguments, ...MORE] };
  const el = await mount('stalwart-confirm', { interrupt: charge({ card }) });
  assert.deepEqual(['count', 'note', 'notify'].map((name) => input(el, name).type), ['number', 'text', 'checkbox']);
  assert.equal(input(el, 'count').getAttribute('step'), '1');
  const details = heard(el);
  await type(el, 'amount', '150.0');
  await type(el, 'count', '3');
  await type(el, 'note', 'with thanks');
  await type(el, 'notify', true);
  assert.deepEqual($$(el, '[part=asked-value]').map(words), ['asked 2', 'asked thanks', 'asked false'], 'not beside 150.0, which is 150');
  approve(el).click();
  await settle(el);
  assert.deepEqual(details[0].edits, { count: 3, note: 'with thanks', notify: true });
});

test('Skip sends no edits, whatever was typed', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge() });
  const details = heard(el);
  await type(el, 'amount', '120');
  $(el, 'button[data-answer=skip]').click();
  await settle(el);
  assert.deepEqual(details.map((detail) => Object.keys(detail).sort()), [['decision', 'interrupt']]);
});

test('"Undo my changes" puts back every asked value, takes its words away from Approve, and focuses the first input', async () => {
  const card = { arguments: [...charge().card.arguments, ...MORE] };
  const el = await mount('stalwart-confirm', { interrupt: charge({ card }) });
  await type(el, 'amount', '120');
  await type(el, 'notify', true);
  const reset = $(el, '[part=edit-reset]');
  assert.equal(words(reset), 'Undo my changes');
  reset.click();
  await settle(el);
  assert.equal(input(el, 'amount').value, '150');
  assert.equal(input(el, 'notify').checked, false);
  assert.equal($(el, '[part=edit-reset]'), null);
  assert.equal($(el, '[part=asked-value]'), null);
  assert.equal(words(approve(el)), 'Approve');
  assert.equal(el.shadowRoot.activeElement, input(el, 'amount'));
  const details = heard(el);
  approve(el).click();
  await settle(el);
  assert.deepEqual(details.map((detail) => detail.edits), [undefined], 'an approval as asked sends no edits');
});

test('an empty number, or a fraction where a whole number is asked: Approve is disabled, and the input says why', async () => {
  const card = { arguments: [...charge().card.arguments, MORE[0]] };
  const el = await mount('stalwart-confirm', { interrupt: charge({ card }) });
  await type(el, 'amount', '');
  const error = $(el, '[part=edit-error]');
  assert.equal(words(error), 'Enter a number for Amount to approve.');
  assert.equal(input(el, 'amount').getAttribute('aria-invalid'), 'true');
  assert.equal(input(el, 'amount').getAttribute('aria-describedby'), error.id);
  assert.ok(approve(el).disabled);
  assert.equal(approve(el).getAttribute('aria-describedby'), error.id, 'the disabled Approve is described by why');
  assert.ok(!$(el, 'button[data-answer=skip]').disabled, 'the other answers stay');
  assert.equal(words($(el, '[part=asked-value]')), 'asked 150.00 EUR');
  assert.deepEqual(await violations(), []);
  await type(el, 'amount', '120');
  await type(el, 'count', '2.5');
  assert.deepEqual($$(el, '[part=edit-error]').map(words), ['Enter a whole number for Count to approve.']);
  assert.ok(approve(el).disabled);
  await type(el, 'count', '3');
  assert.equal($(el, '[part=edit-error]'), null);
  assert.ok(!approve(el).disabled);
  assert.equal(input(el, 'amount').getAttribute('aria-invalid'), 'false');
});

test('an irreversible call approved with changes still says it cannot be undone', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge({ irreversible: true, card: { irreversible: true } }) });
  await type(el, 'amount', '120');
  assert.equal(words(approve(el)), 'Approve with changes — cannot be undone');
});

test('a pause someone\'s change opened says "asked ..." beside the changed value, and who changed it', async () => {
  const amount = {
    name: 'amount', label: 'Amount', value: 120, shown: '120.00 EUR', unit: 'EUR',
    origin: said('origin_edited_by', { who: 'Fiona Walsh' }), asked: { value: 150, shown: '150.00 EUR' },
  };
  const card = { title: 'Charge 120.00 EUR to order 4411', arguments: [amount, charge().card.arguments[1]] };
  const el = await mount('stalwart-confirm', { interrupt: charge({ card, proposed: [], edited_by: 'Fiona Walsh' }) });
  assert.equal(input(el, 'amount'), null, 'this reader may not change it');
  assert.equal(words($$(el, 'dd.value')[0]), '120.00 EUR asked 150.00 EUR');
  assert.equal(words($(el, '[part=asked-value]')), 'asked 150.00 EUR');
  assert.equal(words($$(el, 'dd.origin')[0]), 'changed by Fiona Walsh');
  el.interrupt = charge({ card: { arguments: [{ ...amount, origin: said('origin_edited') }] } });
  await settle(el);
  assert.equal(words($$(el, 'dd.origin')[0]), 'changed before it was approved');
});

test('what was typed survives a fresh copy of the same pause (a refused answer), not a different pause', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge() });
  await type(el, 'amount', '120');
  el.interrupt = { ...charge() };
  await settle(el);
  assert.equal(input(el, 'amount').value, '120');
  assert.equal(words(approve(el)), 'Approve with changes');
  el.interrupt = charge({ id: 'p_2.bbb' });
  await settle(el);
  assert.equal(input(el, 'amount').value, '150');
});

test('a card past its deadline shows the value, not an input', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge({ expired: true }) });
  assert.equal(input(el, 'amount'), null);
  assert.equal(words($$(el, 'dd.value')[0]), '150.00 EUR');
});

// Sent from the chat and from the inbox

const reply = (extra = {}) => ({ thread: 'u-17', reply: { id: 'm-1', text: '' }, steps: [], waiting: [], refusals: [], rollback: null, not_notified: [], ...extra });

test('the chat sends the changes in its resume, and records them from the answer event, as the service says them', async () => {
  const fetcher = fakeFetch({
    'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [charge()], not_notified: [] },
    'POST /threads/u-17/resume': reply({ steps: [{ step: 1, tool: 'charge_card', status: 'done', result: { amount: '120' } }] }),
  });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 'u-17' });
  const confirm = $(el, 'stalwart-confirm');
  await settle(confirm);
  await type(confirm, 'amount', '120');
  approve(confirm).click();
  await settle(el);
  assert.deepEqual(fetcher.calls.at(-1).body, { interrupt_id: 'p_1.aaa', decision: 'approve', token: 'tok-1', edits: { amount: 120 } });
  assert.equal($$(el, '.record').length, 0, 'no record in this page\'s own words, which do not know the changed call');
  FakeEventSource.opened[0].emit('answer', EDITED, 3);
  await settle(el);
  assert.deepEqual($$(el, '.record .what').map(words), ['You approved 120.00 EUR (asked 150.00 EUR): Charge 120.00 EUR to order 4411']);
  assert.deepEqual($$(el, '[part=log] .entry').map((entry) => entry.classList[1]), ['record', 'reply'], 'in its place, before what it did');
  const numbers = $$(el, '[part=log] .entry').map((entry) => Number(entry.dataset.entry));
  assert.equal(new Set(numbers).size, 2, 'each line keeps a place of its own');
});

test('the inbox sends the changes in the pause\'s resume, and says the call approved with changes by its tool', async () => {
  const fetcher = fakeFetch({
    'GET /interrupts': { waiting: [charge()], next: null },
    'POST /threads/u-17/resume': reply({ steps: [{ step: 1, tool: 'charge_card', status: 'done' }] }),
  });
  const el = await mount('stalwart-inbox', { fetcher });
  const confirm = $(el, 'stalwart-confirm');
  await settle(confirm);
  await type(confirm, 'amount', '99.5');
  approve(confirm).click();
  await settle(el);
  assert.deepEqual(fetcher.calls.at(-1).body, { interrupt_id: 'p_1.aaa', decision: 'approve', token: 'tok-1', edits: { amount: 99.5 } });
  assert.deepEqual($$(el, '[part=status] .line').map(words), [
    'You answered Approve with changes: Charge 150.00 EUR to order 4411',
    'Charge a card: done',
  ]);
});

test('a change the service refuses (422) says why on the row, and the card keeps what was typed, to answer again', async () => {
  const fetcher = fakeFetch({
    'GET /interrupts': { waiting: [charge()], next: null },
    'POST /threads/u-17/resume': { status: 422, body: { error: 'edit_refused', message: 'Charges over 500 go through the finance desk.' } },
  });
  const el = await mount('stalwart-inbox', { fetcher });
  let confirm = $(el, 'stalwart-confirm');
  await settle(confirm);
  await type(confirm, 'amount', '900');
  approve(confirm).click();
  await settle(el);
  confirm = $(el, 'stalwart-confirm');
  await settle(confirm);
  assert.equal(words($(el, '[part=row-error]')), 'Something went wrong: Charges over 500 go through the finance desk.');
  assert.equal(input(confirm, 'amount').value, '900');
  assert.ok(!approve(confirm).disabled);
});

// Records

const EDITED = {
  type: 'answer', pause: 'p_1.aaa', kind: 'confirm', tool: 'charge_card', title: 'Charge 150.00 EUR to order 4411', decision: 'approve',
  by: 'alice', principal: { iss: 'test', sub: 'alice', verified: true }, by_owner: true, name: 'Alice Moreau', outcome: 'taken', at: AT,
  arguments: [{ name: 'amount', value: 150, origin: 'typed' }],
  edits: [{ name: 'amount', label: 'Amount', asked: 150, value: 120, from: '150.00 EUR', to: '120.00 EUR' }],
  changed_to: { title: 'Charge 120.00 EUR to order 4411', arguments: [{ name: 'amount', value: 120, origin: 'edited:Alice Moreau' }] },
};
const say = (event) => recordText(recordOf(event));

test('an approval with changes says each change and the call as changed, from the reader\'s side', () => {
  assert.equal(say(EDITED), 'You approved 120.00 EUR (asked 150.00 EUR): Charge 120.00 EUR to order 4411');
  const fiona = { by_owner: false, name: 'Fiona Walsh' };
  assert.equal(say({ ...EDITED, ...fiona }), 'Fiona Walsh approved 120.00 EUR (asked 150.00 EUR): Charge 120.00 EUR to order 4411');
  const two = [...EDITED.edits, { name: 'note', label: 'Note', asked: 'a', value: 'b', from: 'a', to: 'b' }];
  assert.equal(say({ ...EDITED, edits: two }), 'You approved 120.00 EUR (asked 150.00 EUR), b (asked a): Charge 120.00 EUR to order 4411');
  assert.equal(say({ ...EDITED, edits: [{ name: 'amount', asked: 150, value: 120 }] }), 'You approved 120 (asked 150): Charge 120.00 EUR to order 4411');
});

test('a change its author could not approve alone is "edited": asked again, by name from another reader\'s side', () => {
  const edited = { ...EDITED, decision: 'edited' };
  assert.equal(say(edited), 'You changed 120.00 EUR (asked 150.00 EUR), so it is asked again: Charge 120.00 EUR to order 4411');
  assert.equal(
    say({ ...edited, by_owner: false, name: 'Fiona Walsh' }),
    'Fiona Walsh changed 120.00 EUR (asked 150.00 EUR), so it is asked again: Charge 120.00 EUR to order 4411',
  );
});

test('an approval without changes reads as before, and setStrings replaces the words of a change', () => {
  const { edits, changed_to, ...plain } = EDITED;
  assert.ok(edits && changed_to);
  assert.equal(say(plain), 'You approved: Charge 150.00 EUR to order 4411');
  source.setStrings({ editChange: '{to} (era {from})', recordApproveEdited: 'Você aprovou {changes}: {title}' });
  try {
    assert.equal(say(EDITED), 'Você aprovou 120.00 EUR (era 150.00 EUR): Charge 120.00 EUR to order 4411');
  } finally {
    source.setStrings(source.shipped);
  }
});
