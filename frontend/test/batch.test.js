// Issue 27 in a DOM (happy-dom): several pauses of one tool decided at once from the inbox.  Selecting (only rows the
// reader may approve, only of one tool at a time), the summary of exactly what will run (the count, each call, the sum
// of each amount in a currency), the one POST /interrupts/answers, and what became of each, before the inbox is read again.
import { window } from './dom.js';
import { $, $$, words, mount, violations } from './page.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, test } from 'node:test';
import { fakeFetch, settle } from './fakes.js';

const { setStrings, shipped } = await import('../dist/agent-ui.js');
window.eval(readFileSync(new URL('../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8'));

const said = (key, values = {}) => ({ key, values });
const ANSWERS = { approve: { decision: 'approve', words: said('approve'), style: 'primary' }, skip: { decision: 'skip', words: said('skip'), style: 'secondary' } };

/** A charge (or a refund) of `amount` EUR on order `n`, as an approver's inbox lists it. */
function pause(n, amount, extra = {}) {
  const tool = extra.tool ?? 'charge_card';
  const title = `${tool === 'charge_card' ? 'Charge' : 'Refund'} ${amount.toFixed(2)} EUR to order ${n}`;
  return {
    id: `p_${n}.aaa`, kind: 'confirm', thread: `t-${n}`, run: `r_${n}`, step: 1, tool, label: tool === 'charge_card' ? 'Charge a card' : 'Refund a charge',
    title, question: `${title}?`, arguments: [{ name: 'amount', value: amount, origin: 'typed' }], reasons: ['write'], irreversible: false,
    answers: ['approve', 'skip', 'cancel_all'], token: `tok-${n}`, created_at: '2026-12-01T16:00:00.000Z', turn: `charge ${amount} to order ${n}`,
    ...extra,
    card: {
      kind: 'confirm', title, question: `${title}?`, irreversible: false,
      arguments: [
        { name: 'amount', label: 'Amount', value: amount, shown: `${amount.toFixed(2)} EUR`, origin: said('origin_typed_by', { who: 'Alice' }), unit: 'EUR' },
        { name: 'order_id', label: 'Order', value: String(n), shown: String(n), origin: said('origin_typed_by', { who: 'Alice' }) },
      ],
      reasons: [said('reason_write')], deciders: null, asked: said('askedBy', { who: 'Alice', when: '2026-12-01T16:00:00.000Z' }),
      answers: [ANSWERS.approve, ANSWERS.skip], waits_for: null, ...extra.card,
    },
  };
}
const THREE = [pause(1, 40), pause(2, 80.5), pause(3, 1500)];

const boxes = (el) => $$(el, '[part=select] input');
const batch = (el, name) => $(el, `[data-batch=${name}]`);
async function desk(waiting, routes = {}) {
  let listed = waiting;
  const fetcher = fakeFetch({ 'GET /interrupts': () => ({ waiting: listed, next: null }), ...routes });
  const el = await mount('stalwart-inbox', { fetcher });
  for (const confirm of $$(el, 'stalwart-confirm')) await settle(confirm);
  return { el, fetcher, list: (next) => (listed = next) };
}
async function click(el, node) {
  node.click();
  await settle(el);
}
async function check(el, index) {
  const box = boxes(el)[index];
  box.checked = !box.checked;
  box.dispatchEvent(new window.Event('change', { bubbles: true }));
  await settle(el);
}

beforeEach(() => {
  sessionStorage.clear();
  document.title = 'Inbox';
  document.documentElement.lang = 'en';
});
afterEach(() => {
  document.body.innerHTML = '';
  setStrings(shipped);
});

test('each row the reader may approve has a labelled checkbox; one without Approve, or past its deadline, has none', async () => {
  const waiting = [pause(1, 40), pause(2, 80, { card: { answers: [ANSWERS.skip] } }), pause(3, 60, { expired: true })];
  const { el } = await desk(waiting);
  const rows = $$(el, '[part=row]');
  assert.deepEqual(rows.map((row) => !!row.querySelector('[part=select]')), [true, false, false]);
  const box = boxes(el)[0];
  assert.equal(box.type, 'checkbox');
  assert.equal(box.getAttribute('aria-label'), 'Select Charge 40.00 EUR to order 1');
  assert.equal(words(box.closest('label')), 'Select');
  assert.equal($(el, '[part=batch]'), null, 'nothing selected, no bar');
  assert.deepEqual(await violations(), []);
});

test('selecting rows of one tool: the bar counts them, and rows of another tool cannot be selected meanwhile', async () => {
  const { el } = await desk([pause(1, 40), pause(9, 10, { tool: 'refund_charge' }), pause(2, 80)]);
  await check(el, 0);
  assert.equal(words($(el, '[part=batch] p')), '1 selected Only calls to Charge a card can join this selection.');
  assert.deepEqual(boxes(el).map((box) => box.disabled), [false, true, false], 'the refund cannot join the charges');
  await check(el, 2);
  assert.deepEqual($$(el, '[part=row]').map((row) => row.hasAttribute('data-selected')), [true, false, true], 'a selected row stands out');
  assert.equal(words(batch(el, 'approve')), 'Approve 2');
  assert.equal(words(batch(el, 'skip')), 'Skip 2');
  assert.equal(words(batch(el, 'clear')), 'Clear selection');
  assert.deepEqual(await violations(), []);
  await click(el, batch(el, 'clear'));
  assert.equal($(el, '[part=batch]'), null);
  assert.deepEqual(boxes(el).map((box) => [box.checked, box.disabled]), [[false, false], [false, false], [false, false]]);
  assert.equal(el.shadowRoot.activeElement, $(el, '[part=row]'), 'focus goes to the first row, not lost with the bar');
  await check(el, 1);
  assert.deepEqual(boxes(el).map((box) => box.disabled), [true, false, true], 'now only refunds may join');
});

test('"Approve 3" first shows exactly what will run: the count, each call, the sum of the amounts; nothing is sent yet', async () => {
  const { el, fetcher } = await desk(THREE);
  for (const index of [0, 1, 2]) await check(el, index);
  await click(el, batch(el, 'approve'));
  const summary = $(el, '[part=batch-summary]');
  assert.equal(words(summary.querySelector('h3')), 'Approve these 3 calls?');
  assert.equal(el.shadowRoot.activeElement, summary.querySelector('h3'), 'focus on the question, so a screen reader reads it');
  assert.deepEqual([...summary.querySelectorAll('li')].map(words), THREE.map((one) => one.card.title));
  assert.deepEqual($$(el, '[part=batch-total]').map(words), ['Amount in total: 1,620.50 EUR']);
  assert.equal(words(batch(el, 'send')), 'Approve 3', 'the answer the bar offered, now sent');
  assert.deepEqual(fetcher.calls.map((call) => call.method), ['GET']);
  assert.ok(boxes(el).every((box) => box.disabled), 'the selection holds still while its summary is shown');
  assert.deepEqual(await violations(), []);
  await click(el, batch(el, 'back'));
  assert.equal($(el, '[part=batch-summary]'), null);
  assert.equal(el.shadowRoot.activeElement, batch(el, 'approve'), 'back to the button that asked');
  assert.ok(boxes(el).every((box) => !box.disabled && box.checked));
});

test('approving calls that cannot be undone says so first, and its button is drawn as an irreversible approve is', async () => {
  const receipts = [1, 2].map((n) => pause(n, 0, { tool: 'send_receipt', irreversible: true, card: { irreversible: true, arguments: [] } }));
  const { el } = await desk(receipts);
  await check(el, 0);
  await check(el, 1);
  await click(el, batch(el, 'approve'));
  const summary = $(el, '[part=batch-summary]');
  assert.equal(words(summary.firstElementChild), 'Nothing can undo these calls once they run.');
  assert.equal(batch(el, 'send').className, 'irreversible');
  assert.deepEqual($$(el, '[part=batch-total]'), []);
  await click(el, batch(el, 'back'));
  await click(el, batch(el, 'skip'));
  assert.equal(words($(el, '[part=batch-summary] p')), 'Skip 2 Back', 'skipping them undoes nothing, so no warning');
});

test('no sum where the calls do not all give the amount as a number in one currency', async () => {
  const dollars = pause(2, 80);
  dollars.card.arguments[0] = { ...dollars.card.arguments[0], unit: 'USD', shown: '80.00 USD' };
  const { el } = await desk([pause(1, 40), dollars]);
  await check(el, 0);
  await check(el, 1);
  await click(el, batch(el, 'skip'));
  assert.equal(words($(el, '[part=batch-summary] h3')), 'Skip these 2 calls?');
  assert.deepEqual($$(el, '[part=batch-total]'), []);
});

test('confirming sends one POST /interrupts/answers, then says what became of each and reads the inbox again', async () => {
  const outcomes = {
    answers: [
      { interrupt_id: 'p_1.aaa', status: 200, decision: 'approve', steps: [{ step: 1, tool: 'charge_card', status: 'done' }], waiting: [] },
      { interrupt_id: 'p_2.aaa', status: 409, error: 'interrupt_stale', message: 'This was already answered.' },
      { interrupt_id: 'p_3.aaa', status: 403, error: 'not_an_approver', message: 'Only finance approves this.' },
    ],
  };
  const { el, fetcher, list } = await desk([...THREE, pause(4, 10)], { 'POST /interrupts/answers': outcomes });
  for (const index of [0, 1, 2]) await check(el, index);
  await click(el, batch(el, 'approve'));
  list([pause(3, 1500), pause(4, 10)]);
  await click(el, batch(el, 'send'));
  const sent = fetcher.calls.find((call) => call.method === 'POST');
  assert.equal(sent.url, '/interrupts/answers');
  assert.deepEqual(sent.body, {
    answers: [
      { interrupt_id: 'p_1.aaa', token: 'tok-1', decision: 'approve' },
      { interrupt_id: 'p_2.aaa', token: 'tok-2', decision: 'approve' },
      { interrupt_id: 'p_3.aaa', token: 'tok-3', decision: 'approve' },
    ],
  });
  assert.deepEqual($$(el, '[part=status] .line').map(words), [
    'You approved 1 of 3',
    'Charge 40.00 EUR to order 1: done',
    'Charge 80.50 EUR to order 2: someone else answered first',
    'Charge 1500.00 EUR to order 3: not yours to answer',
  ]);
  assert.deepEqual(fetcher.calls.map((call) => call.method), ['GET', 'POST', 'GET'], 'the inbox is read again');
  assert.deepEqual($$(el, '[part=row]').map((row) => row.dataset.id), ['p_3.aaa', 'p_4.aaa']);
  assert.equal($(el, '[part=batch]'), null, 'the selection is done with');
  assert.equal(el.shadowRoot.activeElement, $(el, '[part=status]'), 'focus on what became of each');
  assert.deepEqual(await violations(), []);
});

test('each outcome in words: skipped, answered (an approval counted), expired, and any other refusal in the service\'s words', async () => {
  const outcomes = {
    answers: [
      { interrupt_id: 'p_1.aaa', status: 200, decision: 'skip', steps: [{ step: 1, tool: 'charge_card', status: 'skipped' }], waiting: [] },
      { interrupt_id: 'p_2.aaa', status: 200, decision: 'skip', steps: [], waiting: [] },
      { interrupt_id: 'p_3.aaa', status: 410, error: 'pause_expired', message: 'Nobody answered in time.' },
      { interrupt_id: 'p_4.aaa', status: 400, error: 'bad_request', message: 'skip: not an answer this pause takes' },
    ],
  };
  const { el } = await desk([...THREE, pause(4, 10)], { 'POST /interrupts/answers': outcomes });
  for (const index of [0, 1, 2, 3]) await check(el, index);
  await click(el, batch(el, 'skip'));
  await click(el, batch(el, 'send'));
  const lines = $$(el, '[part=status] .line');
  assert.deepEqual(lines.map(words), [
    'You skipped 2 of 4',
    'Charge 40.00 EUR to order 1: skipped',
    'Charge 80.50 EUR to order 2: answered',
    'Charge 1500.00 EUR to order 3: not done, nobody answered in time',
    'Charge 10.00 EUR to order 4: not done, skip: not an answer this pause takes',
  ]);
  assert.deepEqual(lines.map((line) => line.classList.contains('bad')), [false, false, false, false, true]);
});

test('a batch refused whole (an id twice, too many) says why and keeps the selection', async () => {
  const refused = { status: 400, body: { error: 'bad_request', message: 'answers: at most 100 in one request, not 101' } };
  const { el } = await desk(THREE, { 'POST /interrupts/answers': refused });
  await check(el, 0);
  await click(el, batch(el, 'approve'));
  await click(el, batch(el, 'send'));
  assert.equal(words($(el, '[part=status]')), 'Something went wrong: answers: at most 100 in one request, not 101');
  assert.equal($(el, '[part=batch-summary]'), null);
  assert.equal(words(batch(el, 'approve')), 'Approve 1');
});

test('a filter that reads the inbox afresh drops the selection', async () => {
  const { el } = await desk(THREE);
  await check(el, 0);
  el.setAttribute('tool', 'charge_card');
  await settle(el);
  assert.equal($(el, '[part=batch]'), null);
  assert.ok(boxes(el).every((box) => !box.checked));
});

test('a selected row shows its call as asked, without inputs: the batch approves exactly what the rows show', async () => {
  const editable = (n, amount) => {
    const shown = pause(n, amount);
    shown.card.arguments[0].edit = 'number';
    return shown;
  };
  const { el } = await desk([editable(1, 40), editable(2, 60)]);
  const confirm = $$(el, 'stalwart-confirm')[0];
  const input = $(confirm, '[part=edit-input]');
  input.value = '30';
  input.dispatchEvent(new window.Event('input', { bubbles: true }));
  await settle(confirm);
  assert.ok(words($(confirm, '[part=asked-value]')).includes('40.00 EUR'), 'the change is shown before selecting');
  await check(el, 0);
  await settle(confirm);
  assert.equal($(confirm, '[part=edit-input]'), null, 'no input once selected');
  assert.equal($(confirm, '[part=asked-value]'), null);
  assert.ok(words(confirm.shadowRoot.querySelector('[data-name=amount] + dd')).startsWith('40.00 EUR'));
});
