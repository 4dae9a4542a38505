// Issue 25 in a DOM (happy-dom): the card the server builds for each reader of a pause, rendered by
// <stalwart-confirm>; decision records said from the reader's side; and the inbox as a desk (the card in each
// row, its thread's words, filters by tool and kind, and what an answer did, in words).
import { window } from './dom.js';
import { $, $$, words, mount, violations } from './page.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, test } from 'node:test';
import { FakeEventSource, fakeFetch, settle } from './fakes.js';
import { recordOf, recordText, whenText } from '../src/record.js';

const { setStrings, shipped } = await import('../dist/agent-ui.js');
window.eval(readFileSync(new URL('../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8'));

const AT = '2026-12-01T16:23:37.789Z';
const said = (key, values = {}) => ({ key, values });
const ORDER = { order_id: '4413', customer: 'c-208', total: '980.00' };
const ARGS = [
  { name: 'amount', label: 'Amount', value: 1500, origin: 'typed' },
  { name: 'order_id', label: 'Order', value: '4413', origin: 'result:1', source: { tool: 'look_up_order', step: 1, value: ORDER } },
];
const ANSWERS = {
  approve: { decision: 'approve', words: said('approve'), style: 'primary' },
  skip: { decision: 'skip', words: said('skip'), style: 'secondary' },
  cancel_all: { decision: 'cancel_all', words: said('cancelAll'), style: 'danger' },
};

/**
 * The large charge of a finance desk as `reader` is given it (GET /interrupts, /threads/{id}/interrupts): the pause,
 * and the card the server built for them.  Alice asked; a rule gives the decision to finance.
 */
function charge(reader, extra = {}) {
  const own = reader === 'alice';
  const typed = own ? said('origin_typed') : said('origin_typed_by', { who: 'Alice Moreau' });
  const card = {
    kind: 'confirm', title: 'Charge 1,500.00 EUR to order 4413', question: 'Charge 1,500.00 EUR to order 4413?', irreversible: false,
    arguments: [
      { name: 'amount', label: 'Amount', value: 1500, shown: '1,500.00 EUR', origin: typed },
      { name: 'order_id', label: 'Order', value: '4413', shown: '4413', origin: said('origin_result'), source: { title: 'Look up an order', value: ORDER } },
    ],
    reasons: [said('reason_write', { arg: '', tool: '', rule: '', language: '', error: '', cause: '' })],
    deciders: said('decidesApprover', { who: 'finance' }),
    asked: own ? said('askedByYou', { when: AT }) : said('askedBy', { who: 'Alice Moreau', when: AT }),
    answers: own ? [ANSWERS.skip, ANSWERS.cancel_all] : [ANSWERS.approve, ANSWERS.skip, ANSWERS.cancel_all],
    waits_for: own ? said('waitsFor', { who: 'finance' }) : null,
    ...extra.card,
  };
  return {
    id: 'p_9.aaa', kind: 'confirm', thread: 't-9', run: 'r_9', step: 2, tool: 'charge_card', label: 'Charge a card',
    title: 'Charge 1,500.00 EUR to order 4413', question: 'Charge 1,500.00 EUR to order 4413?', arguments: ARGS, reasons: ['write'],
    irreversible: false, answers: ['approve', 'skip', 'cancel_all'], token: 'tok-9', created_at: AT, asked_by: 'Alice Moreau',
    turn: 'look up order 4413 and charge 1500 to order 4413', ...extra, card,
  };
}

const buttons = (el) => $$(el, '[part=choices] button').map((button) => [words(button), button.dataset.answer, button.className, button.dataset.variant]);

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  FakeEventSource.opened = [];
  document.title = 'Card';
  document.documentElement.lang = 'en';
});
afterEach(() => {
  document.body.innerHTML = '';
  setStrings(shipped);
});

// <stalwart-confirm> with the card

test('the owner under a rule that gives the decision to finance: who it waits for, prominently, and no Approve', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge('alice') });
  assert.equal(words($(el, 'h2')), 'Charge 1,500.00 EUR to order 4413');
  assert.equal($(el, '.question'), null, 'the question the title already asks is not said twice');
  assert.equal(words($(el, '[part=waits-for]')), 'Waits for finance to decide');
  assert.equal($(el, '[part=deciders]'), null, '"Needs an approver from finance" would only repeat it');
  assert.equal(words($(el, '[part=asked]')), `You asked, ${whenText(AT)}`);
  assert.equal($(el, '[part=asked]').dataset.when, AT);
  assert.deepEqual(buttons(el), [
    ['Skip this step', 'skip', 'quiet', 'secondary'],
    ['Cancel everything', 'cancel_all', 'danger', 'danger'],
  ]);
  assert.equal($(el, 'button[data-answer=approve]'), null, 'an answer the card does not give is not offered');
  assert.deepEqual($$(el, 'dd.value').map(words), ['1,500.00 EUR', '4413'], 'each value as the card shows it, in its unit');
  assert.equal(words($$(el, 'dd.origin')[0]), 'you typed it');
  const order = [...$(el, '[part=confirm]').children].map((child) => child.getAttribute('part') ?? child.tagName.toLowerCase());
  assert.deepEqual(order.slice(0, 3), ['h2', 'asked', 'waits-for']);
});

test('an approver: every answer in its style, "Alice Moreau typed it", who asked and when, and who must decide', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge('fiona') });
  assert.deepEqual(buttons(el), [
    ['Approve', 'approve', '', 'primary'],
    ['Skip this step', 'skip', 'quiet', 'secondary'],
    ['Cancel everything', 'cancel_all', 'danger', 'danger'],
  ]);
  assert.equal($(el, '[part=waits-for]'), null);
  assert.equal(words($(el, '[part=deciders]')), 'Needs an approver from finance');
  assert.equal(words($(el, '[part=asked]')), `Asked by Alice Moreau, ${whenText(AT)}`);
  assert.deepEqual($$(el, '[part=arguments] dt').map(words), ['Amount', 'Order']);
  assert.deepEqual($$(el, '[part=arguments] dt').map((dt) => dt.dataset.name), ['amount', 'order_id']);
  const [typed, fromCall] = $$(el, 'dd.origin');
  assert.equal(words(typed), 'Alice Moreau typed it');
  assert.equal(typed.dataset.origin, 'typed', 'the origin as the pause gives it stays as data');
  assert.match(words(fromCall), /^from Look up an order What it came from/);
  assert.deepEqual(JSON.parse(fromCall.querySelector('pre').textContent), ORDER);
  assert.equal(fromCall.dataset.origin, 'result:1');
  const heard = [];
  el.addEventListener('stalwart-decision', (event) => heard.push(event.detail.decision));
  $(el, 'button[data-answer=approve]').click();
  await settle(el);
  assert.deepEqual(heard, ['approve']);
  assert.ok($$(el, 'button').every((button) => button.disabled));
});

test('a second approver under four eyes who already approved: the approvals so far, and no second Approve', async () => {
  const card = { deciders: said('approvalsGiven', { names: 'Frank Ode', given: 1, needed: 2 }), answers: [ANSWERS.skip, ANSWERS.cancel_all] };
  const el = await mount('stalwart-confirm', { interrupt: charge('frank', { card }) });
  assert.equal(words($(el, '[part=deciders]')), 'Approved by Frank Ode (1 of 2)');
  assert.equal($(el, '[part=deciders]').dataset.key, 'approvalsGiven');
  assert.deepEqual(buttons(el).map(([text]) => text), ['Skip this step', 'Cancel everything']);
  assert.equal($(el, '[part=waits-for]'), null);
});

test('a reader the card gives no answer sees the card and no buttons at all', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge('mallory', { card: { answers: [] } }) });
  assert.equal(words($(el, 'h2')), 'Charge 1,500.00 EUR to order 4413');
  assert.equal($(el, '[part=choices]'), null);
});

test('the card\'s reasons are its sentences, a rule that could not be checked among them, each code kept as data', async () => {
  const card = {
    reasons: [
      said('reason_write', {}),
      said('reason_argument_origin', { arg: 'Amount' }),
      said('reason_rule_failed', { rule: 'finance-large' }),
    ],
  };
  const el = await mount('stalwart-confirm', { interrupt: charge('fiona', { card, reasons: ['write', 'argument_origin: amount'] }) });
  const items = $$(el, '[part=reasons] li');
  assert.deepEqual(items.map(words), [
    'It changes something outside this conversation.',
    'You did not give Amount yourself: check it.',
    'The approver rule finance-large could not be checked; the team running this service has been told.',
  ]);
  assert.deepEqual(items.map((li) => li.dataset.reason), ['write', 'argument_origin: amount', 'reason_rule_failed']);
});

test('an irreversible card warns first, and its approve says it cannot be undone in the warning\'s colour', async () => {
  const card = { irreversible: true, answers: [{ ...ANSWERS.approve, words: said('approveIrreversible') }, ANSWERS.skip, ANSWERS.cancel_all] };
  const el = await mount('stalwart-confirm', { interrupt: charge('fiona', { card }) });
  assert.equal($(el, '[part=confirm]').firstElementChild.getAttribute('part'), 'irreversible');
  assert.deepEqual(buttons(el)[0], ['Approve — cannot be undone', 'approve', 'irreversible', 'primary']);
});

test('a source the pause says was too large says so on the card', async () => {
  const pause = charge('fiona');
  pause.arguments = [ARGS[0], { ...ARGS[1], source: { tool: 'look_up_order', step: 1, truncated: true } }];
  pause.card.arguments[1].source = { title: 'Look up an order' };
  const el = await mount('stalwart-confirm', { interrupt: pause });
  assert.equal(words($$(el, 'dd.origin')[1]), 'from Look up an order Too large to show here.');
});

test('an ask with a card still takes its value; one whose card gives no answer takes none', async () => {
  const ask = {
    ...charge('alice'), kind: 'ask', prompt: 'What amount should Charge a card use?', answers: ['answer'], arguments: [], reasons: [],
    card: { ...charge('alice').card, kind: 'ask', question: 'What amount?', arguments: [], reasons: [], deciders: null, waits_for: null, answers: [{ decision: 'answer', words: said('answerLabel'), style: 'primary' }] },
  };
  const el = await mount('stalwart-confirm', { interrupt: ask });
  assert.equal(words($(el, 'h2')), 'What amount should Charge a card use?');
  const heard = [];
  el.addEventListener('stalwart-decision', (event) => heard.push(event.detail));
  $(el, 'input').value = '40';
  $(el, 'form').dispatchEvent(new window.Event('submit', { cancelable: true }));
  await settle(el);
  assert.deepEqual(heard.map(({ decision, value }) => [decision, value]), [['answer', '40']]);
  el.interrupt = { ...ask, card: { ...ask.card, answers: [] } };
  await settle(el);
  assert.equal($(el, 'form'), null);
});

test('setStrings replaces the card\'s words too', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge('alice') });
  setStrings({ waitsFor: 'Aguarda {who}', origin_typed: 'você digitou', skip: 'Pular', askedByYou: 'Você pediu, {when}' });
  await settle(el);
  assert.equal(words($(el, '[part=waits-for]')), 'Aguarda finance');
  assert.equal(words($$(el, 'dd.origin')[0]), 'você digitou');
  assert.equal(words($(el, 'button[data-answer=skip]')), 'Pular');
  assert.match(words($(el, '[part=asked]')), /^Você pediu, /);
});

test('a pause without a card (a team\'s own backend) is shown from its own fields, cancel_all drawn as destructive', async () => {
  const { card, ...bare } = charge('fiona');
  assert.ok(card);
  const el = await mount('stalwart-confirm', { interrupt: bare });
  assert.deepEqual(buttons(el), [
    ['Approve', 'approve', '', 'primary'],
    ['Skip this step', 'skip', 'quiet', 'secondary'],
    ['Cancel everything', 'cancel_all', 'danger', 'danger'],
  ]);
  assert.deepEqual($$(el, 'dd.value').map(words), ['1500', '4413']);
  assert.equal(words($$(el, 'dd.origin')[0]), 'you typed it');
  assert.equal($(el, '[part=asked]'), null);
  assert.equal($(el, '[part=deciders]'), null);
});

test('a danger button is drawn in the refusal colour, outlined, not as the primary is', () => {
  const css = customElements.get('stalwart-confirm').elementStyles.map((sheet) => sheet.cssText ?? '').join('\n');
  const rule = css.slice(css.indexOf('button.danger'), css.indexOf('}', css.indexOf('button.danger')));
  assert.match(rule, /color: var\(--_bad\)/);
  assert.match(rule, /border-color: var\(--_bad\)/);
  assert.match(rule, /background: var\(--_bg\)/);
});

// Decision records, from the reader's side

const EVENT = {
  type: 'answer', pause: 'p_9.aaa', kind: 'confirm', tool: 'charge_card', title: 'Charge 1,500.00 EUR to order 4413', decision: 'approve',
  by: 'fiona', principal: { iss: 'test', sub: 'fiona', verified: true }, outcome: 'taken', at: AT,
};
const say = (event) => recordText(recordOf(event));

test('a record says "You" where the thread\'s owner answered, and the answerer\'s name where someone else did', () => {
  assert.equal(say({ ...EVENT, by_owner: false, name: 'Fiona Walsh' }), 'Fiona Walsh approved: Charge 1,500.00 EUR to order 4413');
  assert.equal(say({ ...EVENT, by_owner: false }), 'fiona approved: Charge 1,500.00 EUR to order 4413', 'without a name, who the service says');
  assert.equal(say({ ...EVENT, by_owner: false, by: null }), 'fiona approved: Charge 1,500.00 EUR to order 4413', 'else the subject');
  assert.equal(say({ ...EVENT, by_owner: true, name: 'Alice Moreau', by: 'alice' }), 'You approved: Charge 1,500.00 EUR to order 4413');
  assert.equal(say({ ...EVENT, by: '', principal: null }), 'You approved: Charge 1,500.00 EUR to order 4413', 'no principal: this page\'s own');
  assert.equal(say(EVENT), 'fiona approved: Charge 1,500.00 EUR to order 4413', 'no by_owner, someone signed in: by name');
  const anonymous = { principal: { iss: 'stalwart:none', sub: 'anonymous', verified: false }, by: 'anonymous' };
  assert.equal(say({ ...EVENT, ...anonymous }), 'You approved: Charge 1,500.00 EUR to order 4413', 'a service that signs no one in');
});

test('every kind of answer has its words from another reader\'s side', () => {
  const theirs = { ...EVENT, by_owner: false, name: 'Fiona Walsh' };
  const cases = [
    [{ decision: 'approve', outcome: 'approval' }, 'Fiona Walsh approved, and more approvals are needed: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'skip' }, 'Fiona Walsh skipped: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'cancel_all' }, 'Fiona Walsh cancelled: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'answer', value: '40', kind: 'ask' }, 'Fiona Walsh answered 40: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'happened' }, 'Fiona Walsh said it happened: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'did_not_happen' }, 'Fiona Walsh said it did not happen: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'retry' }, 'Fiona Walsh asked to try undoing again: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'done_by_hand' }, 'Fiona Walsh undid it by hand: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'abandon' }, 'Fiona Walsh left it: Charge 1,500.00 EUR to order 4413'],
    [{ decision: 'approve', kind: 'delegate' }, 'Fiona Walsh passed it on to the assistant'],
    [{ decision: 'decline', kind: 'delegate' }, 'Fiona Walsh did not pass it on'],
    [{ decision: 'escalate' }, 'Fiona Walsh answered escalate: Charge 1,500.00 EUR to order 4413'],
  ];
  for (const [event, text] of cases) assert.equal(say({ ...theirs, ...event }), text);
});

test('in the chat, another person\'s answer is theirs by name, and never "You approved" by someone else', async () => {
  const fetcher = fakeFetch({ 'GET /threads/t-9/interrupts': { thread: 't-9', waiting: [], not_notified: [] } });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 't-9' });
  FakeEventSource.opened[0].emit('answer', { ...EVENT, by_owner: false, name: 'Fiona Walsh' }, 1);
  FakeEventSource.opened[0].emit('answer', { ...EVENT, pause: 'p_10', decision: 'skip', by_owner: true, name: 'Alice Moreau', by: 'alice' }, 2);
  await settle(el);
  assert.deepEqual($$(el, '.record .what').map(words), [
    'Fiona Walsh approved: Charge 1,500.00 EUR to order 4413',
    'You skipped: Charge 1,500.00 EUR to order 4413',
  ]);
  assert.ok($$(el, '.record .meta').every((meta) => !/by /.test(words(meta))), 'the meta line is when, not "by"');
});

test('in the chat, a pause that waits for finance says so in the status, and its card offers no Approve', async () => {
  const fetcher = fakeFetch({ 'GET /threads/t-9/interrupts': { thread: 't-9', waiting: [charge('alice')], not_notified: [] } });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 't-9' });
  assert.equal(words($(el, '[part=status]')), 'Waits for finance to decide');
  const confirm = $(el, 'stalwart-confirm');
  await settle(confirm);
  assert.equal($(confirm, 'button[data-answer=approve]'), null);
  assert.equal(words($(confirm, '[part=waits-for]')), 'Waits for finance to decide');
});

// <stalwart-inbox> as a desk

const reply = (extra = {}) => ({ thread: 't-9', reply: { id: 'm-1', text: '' }, steps: [], waiting: [], refusals: [], rollback: null, not_notified: [], ...extra });
const step = (status, extra = {}) => ({ step: 2, tool: 'charge_card', arguments: [], status, result: null, error: null, call: null, ...extra });
const ask = (n) => ({ ...charge('fiona'), id: `p_ask.${n}`, thread: `t-${n}`, kind: 'ask', tool: 'refund_charge', label: 'Refund a charge', prompt: 'How much?', answers: ['answer'], card: { ...charge('fiona').card, kind: 'ask', answers: [{ decision: 'answer', words: said('answerLabel'), style: 'primary' }] } });

async function desk(backend, attributes = {}) {
  const fetcher = fakeFetch(backend);
  const el = await mount('stalwart-inbox', { fetcher }, attributes);
  for (const confirm of $$(el, 'stalwart-confirm')) await settle(confirm);
  return { el, fetcher };
}

async function choose(el, index, decision) {
  const confirm = $$(el, 'stalwart-confirm')[index];
  $(confirm, `button[data-answer=${decision}]`).click();
  await settle(el);
  for (const other of $$(el, 'stalwart-confirm')) await settle(other);
}

test('each row is the card for its reader: headed by its thread\'s words, with who asked, when, and who must decide', async () => {
  const { el } = await desk({ 'GET /interrupts': { waiting: [charge('fiona')], next: null } });
  const row = $(el, '[part=row]');
  assert.equal(words(row.querySelector('[part=thread]')), 'look up order 4413 and charge 1500 to order 4413');
  assert.doesNotMatch(words(row.querySelector('[part=thread]')), /t-9/, 'not the thread\'s id');
  const confirm = row.querySelector('stalwart-confirm');
  assert.equal(confirm.interrupt.card.title, 'Charge 1,500.00 EUR to order 4413');
  assert.equal(words($(confirm, '[part=asked]')), `Asked by Alice Moreau, ${whenText(AT)}`);
  assert.equal(words($(confirm, '[part=deciders]')), 'Needs an approver from finance');
  assert.equal(words($$(confirm, 'dd.origin')[0]), 'Alice Moreau typed it');
  assert.equal($(el, '[part=approvals]'), null, 'the card says the approvals; the row does not say them twice');
  assert.deepEqual(await violations(), []);
});

test('the filters offer the tools seen, by name, and the kinds in words; a choice sets the attribute and reads again', async () => {
  const { el, fetcher } = await desk({ 'GET /interrupts': { waiting: [charge('fiona'), ask(3)], next: null } });
  const label = (name) => words($(el, `label[for=${$(el, `select[name=${name}]`).id}]`));
  assert.equal(label('tool'), 'Tool');
  assert.equal(label('kind'), 'Kind');
  const options = (name) => $$(el, `select[name=${name}] option`).map((option) => [option.value, words(option)]);
  assert.deepEqual(options('tool'), [['', 'All tools'], ['charge_card', 'Charge a card'], ['refund_charge', 'Refund a charge']]);
  assert.deepEqual(options('kind'), [
    ['', 'All kinds'], ['confirm', 'Calls to approve'], ['ask', 'Questions to answer'],
    ['outcome_unknown', 'Calls that may not have happened'], ['saga_stuck', 'Undos that failed'], ['delegate', 'Turns to pass on'],
  ]);
  const pick = async (name, value) => {
    const select = $(el, `select[name=${name}]`);
    select.value = value;
    select.dispatchEvent(new window.Event('change', { bubbles: true }));
    await settle(el);
  };
  await pick('tool', 'charge_card');
  assert.equal(el.getAttribute('tool'), 'charge_card');
  await pick('kind', 'confirm');
  assert.equal(el.getAttribute('kind'), 'confirm');
  assert.deepEqual(fetcher.calls.map((call) => call.url).slice(1), ['/interrupts?tool=charge_card&limit=50', '/interrupts?kind=confirm&tool=charge_card&limit=50']);
  assert.deepEqual(options('tool').map(([value]) => value), ['', 'charge_card', 'refund_charge'], 'the tools seen stay on offer');
  assert.ok($(el, 'select[name=tool] option[value=charge_card]').selected);
  await pick('tool', '');
  assert.equal(el.getAttribute('tool'), '');
  assert.equal(fetcher.calls.at(-1).url, '/interrupts?kind=confirm&limit=50');
  assert.deepEqual(await violations(), []);
});

test('after an approval the status says what was answered and what became of the call, in words', async () => {
  const { el, fetcher } = await desk({
    'GET /interrupts': { waiting: [charge('fiona'), { ...charge('fiona'), id: 'p_8.aaa', thread: 't-8' }], next: null },
    'POST /threads/t-9/resume': reply({ steps: [step('done')] }),
  });
  await choose(el, 0, 'approve');
  assert.deepEqual(fetcher.calls.at(-1).body, { interrupt_id: 'p_9.aaa', decision: 'approve', token: 'tok-9' });
  assert.deepEqual($$(el, '[part=status] .line').map(words), [
    'You answered Approve: Charge 1,500.00 EUR to order 4413',
    'Charge 1,500.00 EUR to order 4413: done',
  ]);
  assert.doesNotMatch(words($(el, '[part=status]')), /thread/i);
  assert.deepEqual($$(el, '[part=row]').map((row) => row.dataset.thread), ['t-8']);
  assert.equal(el.shadowRoot.activeElement, $(el, '[part=row]'));
});

test('a call that failed says so, in the refusal colour; a skip and a cancel say theirs', async () => {
  const outcomes = { 't-1': step('failed', { error: 'card declined' }), 't-2': step('skipped'), 't-3': step('cancelled') };
  const backend = { 'GET /interrupts': { waiting: ['t-1', 't-2', 't-3'].map((thread, i) => ({ ...charge('fiona'), id: `p_${i}`, thread })), next: null } };
  for (const [thread, outcome] of Object.entries(outcomes)) backend[`POST /threads/${thread}/resume`] = reply({ steps: [step('done', { step: 1, tool: 'look_up_order' }), outcome] });
  const { el } = await desk(backend);
  await choose(el, 0, 'approve');
  const lines = () => $$(el, '[part=status] .line');
  assert.equal(words(lines()[1]), 'Charge 1,500.00 EUR to order 4413: failed');
  assert.ok(lines()[1].classList.contains('bad'));
  await choose(el, 0, 'skip');
  assert.deepEqual(lines().map(words), ['You answered Skip this step: Charge 1,500.00 EUR to order 4413', 'Charge 1,500.00 EUR to order 4413: skipped']);
  await choose(el, 0, 'cancel_all');
  assert.deepEqual(lines().map(words), ['You answered Cancel everything: Charge 1,500.00 EUR to order 4413', 'Charge 1,500.00 EUR to order 4413: cancelled']);
});

test('an answer after which its thread waits on something else for this reader: that takes the row\'s place', async () => {
  const next = { ...charge('fiona'), id: 'p_9.bbb', step: 3, token: 'tok-9b', turn: undefined, card: { ...charge('fiona').card, title: 'Refund 40.00 EUR on order 4411' } };
  const { el } = await desk({
    'GET /interrupts': { waiting: [charge('fiona')], next: null },
    'POST /threads/t-9/resume': reply({ steps: [step('done')], waiting: [next] }),
  });
  await choose(el, 0, 'approve');
  assert.deepEqual($$(el, '[part=status] .line').map(words).at(-1), 'It now waits for another answer.');
  const confirm = $(el, 'stalwart-confirm');
  assert.equal(confirm.interrupt.id, 'p_9.bbb');
  assert.equal(words($(el, '[part=thread]')), 'look up order 4413 and charge 1500 to order 4413', 'the thread\'s words stay with it');
  assert.equal(words($(confirm, 'h2')), 'Refund 40.00 EUR on order 4411');
});

test('an ask answered from the desk says the answer given', async () => {
  const { el } = await desk({ 'GET /interrupts': { waiting: [ask(3)], next: null }, 'POST /threads/t-3/resume': reply() });
  const confirm = $(el, 'stalwart-confirm');
  $(confirm, 'input').value = '40';
  $(confirm, 'form').dispatchEvent(new window.Event('submit', { cancelable: true }));
  await settle(el);
  assert.deepEqual($$(el, '[part=status] .line').map(words), ['You answered 40: Charge 1,500.00 EUR to order 4413']);
});

test('four eyes: a counted approval keeps the row with the card the answer gives, which has no second Approve', async () => {
  const counted = {
    ...charge('frank'), token: 'tok-9b', turn: undefined,
    card: { ...charge('frank').card, deciders: said('approvalsGiven', { names: 'Frank Ode', given: 1, needed: 2 }), answers: [ANSWERS.skip, ANSWERS.cancel_all] },
  };
  const { el } = await desk({ 'GET /interrupts': { waiting: [charge('frank')], next: null }, 'POST /threads/t-9/resume': reply({ waiting: [counted] }) });
  await choose(el, 0, 'approve');
  const confirm = $(el, 'stalwart-confirm');
  assert.equal(words($(el, '[part=status]')), 'Your approval is counted; it waits for another person’s before it runs.');
  assert.equal(words($(confirm, '[part=deciders]')), 'Approved by Frank Ode (1 of 2)');
  assert.deepEqual($$(confirm, '[part=choices] button').map((button) => button.dataset.answer), ['skip', 'cancel_all']);
  assert.ok($$(confirm, 'button').every((button) => !button.disabled));
  assert.equal(words($(el, '[part=thread]')), 'look up order 4413 and charge 1500 to order 4413');
});

test('an inbox with nothing listed and no filter set shows no filters; a filter that empties the list stays to be undone', async () => {
  const { el } = await desk({ 'GET /interrupts': { waiting: [], next: null } });
  assert.ok($(el, '[part=filters]').hidden);
  const { el: filtered } = await desk({ 'GET /interrupts': { waiting: [], next: null } }, { kind: 'ask' });
  assert.ok(!$(filtered, '[part=filters]').hidden);
  assert.ok($(filtered, 'select[name=kind] option[value=ask]').selected);
});
