// Issue 16 in a DOM (happy-dom): what a person needs to decide.  The card in words (the described call,
// labels, an origin naming its call, reasons as sentences, the irreversible approve), and the conversation
// (each step's result, a record of every decision from the thread's answer events, the composer while a
// run waits, a refusal once, and the empty page's agent and examples from /config.json).
import { window } from './dom.js';
import { $, $$, words, mount } from './page.js';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { FakeEventSource, fakeFetch, settle } from './fakes.js';

const { setStrings, shipped } = await import('../dist/agent-ui.js');

const ORDER = { order_id: '4411', customer: 'c-208', status: 'unpaid', total: '40.00' };
/** A confirm pause as the backend gives it since issue 16: a title, labels, and the call an argument came from. */
const CHARGE = {
  id: 'p_1.aaa', kind: 'confirm', thread: 'u-17', run: 'r_1', step: 2, tool: 'charge_card', label: 'Charge a card',
  title: 'Charge 40 to order 4411', question: 'Charge 40 to order 4411?',
  arguments: [
    { name: 'amount', label: 'Amount', value: 40, origin: 'typed' },
    { name: 'order_id', label: 'Order', value: '4411', origin: 'result:1.1', source: { tool: 'look_up_order', step: 1, value: ORDER } },
  ],
  reasons: ['write', 'argument_origin: order_id', 'tainted_call: untrusted:read_messages', 'rule: big-charges', 'missing: amount', 'unread', 'language: en', 'escalated: why'],
  irreversible: true, answers: ['approve', 'skip', 'cancel_all'], token: 'tok-1', created_at: '2025-01-01T00:00:00.000Z',
};
const reply = (text, extra = {}) => ({ thread: 'u-17', reply: { id: `m-${text.length}`, text }, steps: [], waiting: [], refusals: [], rollback: null, not_notified: [], ...extra });
const ABOUT = { agent: 'shop', base: '', description: 'Looks up orders and charges them, with a person\'s approval.', examples: ['look up order 4411', 'charge 40 to order 4411'] };
const APPROVED = {
  type: 'answer', run: 'r_1', pause: CHARGE.id, kind: 'confirm', tool: 'charge_card', title: CHARGE.title, arguments: CHARGE.arguments,
  decision: 'approve', value: null, channel: 'http', by: 'alice@example.com', principal: { iss: 'https://id.example.com', sub: 'alice', verified: true },
  by_owner: true, name: 'Alice Moreau', outcome: 'taken', at: '2025-01-01T09:30:00.000Z',
};

async function chat(routes) {
  const fetcher = fakeFetch({ 'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [], not_notified: [] }, ...routes });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 'u-17' });
  return { el, fetcher };
}

async function type(el, text) {
  const area = $(el, 'textarea');
  area.value = text;
  area.dispatchEvent(new window.Event('input'));
  await settle(el);
  area.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  await settle(el);
}

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  FakeEventSource.opened = [];
});
afterEach(() => {
  document.body.innerHTML = '';
  setStrings(shipped);
});

// The card

test('the card\'s title is the described call, and its question is not said twice', async () => {
  const el = await mount('stalwart-confirm', { interrupt: CHARGE });
  assert.equal(words($(el, 'h2')), 'Charge 40 to order 4411');
  assert.equal($(el, '.question'), null);
  el.interrupt = { ...CHARGE, question: 'Take 40 from the customer\'s card?' };
  await settle(el);
  assert.equal(words($(el, '.question')), 'Take 40 from the customer\'s card?', 'a tool\'s own question is shown');
});

test('the other kinds ask about the described call', async () => {
  const el = await mount('stalwart-confirm', { interrupt: { ...CHARGE, kind: 'outcome_unknown', answers: ['happened', 'did_not_happen'] } });
  assert.equal(words($(el, 'h2')), 'Did Charge 40 to order 4411 take effect?');
  el.interrupt = { ...CHARGE, kind: 'saga_stuck', answers: ['retry', 'done_by_hand', 'abandon'], irreversible: false };
  await settle(el);
  assert.equal(words($(el, 'h2')), 'Undoing Charge 40 to order 4411 failed. What should happen?');
});

test('arguments are named by their labels, each keeping its identifier as data', async () => {
  const el = await mount('stalwart-confirm', { interrupt: CHARGE });
  assert.deepEqual($$(el, '[part=arguments] dt').map(words), ['Amount', 'Order']);
  assert.deepEqual($$(el, '[part=arguments] dt').map((dt) => dt.dataset.name), ['amount', 'order_id']);
});

test('an argument from an earlier call names that call and shows the value it came from on request', async () => {
  const el = await mount('stalwart-confirm', { interrupt: CHARGE });
  const [typed, fromCall] = $$(el, '[part=arguments] dd.origin');
  assert.equal(words(typed), 'you typed it');
  assert.match(words(fromCall), /^from look_up_order /);
  assert.equal(fromCall.dataset.origin, 'result:1.1');
  const disclosure = fromCall.querySelector('details');
  assert.equal(words(disclosure.querySelector('summary')), 'What it came from order_id: 4411, customer: c-208, status: unpaid, total: 40.00');
  assert.ok(!disclosure.open);
  assert.deepEqual(JSON.parse(disclosure.querySelector('pre').textContent), ORDER);
});

test('a source too large to carry says so, and one without a tool keeps the origin\'s words', async () => {
  const args = [
    { name: 'order_id', label: 'Order', value: '4411', origin: 'result:1.1', source: { tool: 'look_up_order', step: 1, truncated: true } },
    { name: 'amount', label: 'Amount', value: 40, origin: 'result:1' },
  ];
  const el = await mount('stalwart-confirm', { interrupt: { ...CHARGE, arguments: args } });
  assert.deepEqual($$(el, 'dd.origin').map(words), ['from look_up_order Too large to show here.', 'from an earlier step']);
  assert.equal($$(el, 'dd.origin details').length, 0);
});

test('reasons are sentences, an argument named by its label, an unknown code as it is, and every code kept as data', async () => {
  const el = await mount('stalwart-confirm', { interrupt: CHARGE });
  const items = $$(el, '[part=reasons] li');
  assert.deepEqual(items.map(words), [
    'It changes something outside this conversation.',
    'You did not give Order yourself: check it.',
    'It comes after read_messages, whose answer is not trusted.',
    'A rule asks for a person: big-charges.',
    'It needs Amount, which was not given.',
    'The agent could not read that message.',
    'The agent reads English only.',
    'escalated: why',
  ]);
  assert.deepEqual(items.map((li) => li.dataset.reason), CHARGE.reasons);
  assert.deepEqual(items.map((li) => li.title), CHARGE.reasons);
});

test('each reason\'s sentence is replaced with setStrings', async () => {
  const el = await mount('stalwart-confirm', { interrupt: { ...CHARGE, reasons: ['write', 'missing: amount'] } });
  setStrings({ reason_write: 'Muda algo.', reason_missing: 'Falta {arg}.' });
  await settle(el);
  assert.deepEqual($$(el, '[part=reasons] li').map(words), ['Muda algo.', 'Falta Amount.']);
});

test('an irreversible call: the warning comes first and its approve button says it cannot be undone', async () => {
  const el = await mount('stalwart-confirm', { interrupt: CHARGE });
  const section = $(el, '[part=confirm]');
  assert.equal(section.firstElementChild.getAttribute('part'), 'irreversible');
  const approve = $(el, 'button[data-answer=approve]');
  assert.equal(words(approve), 'Approve — cannot be undone');
  assert.ok(approve.classList.contains('irreversible'));
  el.interrupt = { ...CHARGE, irreversible: false };
  await settle(el);
  assert.equal(words($(el, 'button[data-answer=approve]')), 'Approve');
  assert.equal($(el, '[part=irreversible]'), null);
});

// The conversation

test('each step\'s result shows as a short line, expandable to the whole JSON', async () => {
  const steps = [
    { step: 1, tool: 'look_up_order', arguments: [], status: 'done', result: ORDER, error: null, call: null },
    { step: 2, tool: 'charge_card', arguments: [], status: 'skipped', result: null, error: null, call: null },
  ];
  const { el } = await chat({ 'POST /threads/u-17/messages': reply('Done: look_up_order.', { steps }) });
  await type(el, 'look up order 4411');
  const results = $$(el, '.reply .results li');
  assert.equal(results.length, 1, 'a step that gave nothing shows nothing');
  assert.equal($(el, '.reply .results').getAttribute('aria-label'), 'Results');
  assert.equal(words(results[0].querySelector('summary')), 'look_up_order order_id: 4411, customer: c-208, status: unpaid, total: 40.00');
  assert.deepEqual(JSON.parse(results[0].querySelector('pre').textContent), ORDER);
});

test('the step trace shows what each step gave, too', async () => {
  const events = [{ type: 'step', key: '1', tool: 'look_up_order', status: 'done', result: ORDER }, { type: 'step', key: '2', tool: 'charge_card', status: 'skipped' }];
  const el = await mount('stalwart-trace', { events });
  assert.deepEqual($$(el, 'li summary').map(words), ['order_id: 4411, customer: c-208, status: unpaid, total: 40.00']);
});

test('a long result is cut short in its line, and kept whole inside', async () => {
  const long = { note: 'x'.repeat(300) };
  const steps = [{ step: 1, tool: 'look_up_order', arguments: [], status: 'done', result: long, error: null, call: null }];
  const { el } = await chat({ 'POST /threads/u-17/messages': reply('Done.', { steps }) });
  await type(el, 'look up order 4411');
  const short = words($(el, '.results .short'));
  assert.ok(short.length <= 120 && short.endsWith('…'), short);
  assert.deepEqual(JSON.parse($(el, '.results pre').textContent), long);
});

test('an answer event makes a decision record: what and when, from the reader\'s side, completing the one this page made', async () => {
  const { el } = await chat({
    'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [CHARGE], not_notified: [] },
    'POST /threads/u-17/resume': reply('Done: charge_card.'),
  });
  $($(el, 'stalwart-confirm'), 'button[data-answer=approve]').click();
  await settle(el);
  assert.deepEqual($$(el, '[part=log] .entry').map((entry) => entry.classList[1]), ['record', 'reply']);
  assert.equal(words($(el, '.record .what')), 'You approved: Charge 40 to order 4411');
  FakeEventSource.opened[0].emit('answer', APPROVED, 7);
  await settle(el);
  const records = $$(el, '.record');
  assert.equal(records.length, 1, 'the event completes the record, it does not add a second');
  assert.equal(records[0].dataset.decision, 'approve');
  assert.equal(words(records[0].querySelector('.what')), 'You approved: Charge 40 to order 4411', 'the owner\'s own answer is "You"');
  const meta = records[0].querySelector('.meta');
  assert.doesNotMatch(words(meta), /by /, 'and is never also "by" someone');
  assert.equal(meta.querySelector('time').getAttribute('datetime'), '2025-01-01T09:30:00.000Z');
});

test('every kind of answer has its words; a refused answer is no decision, and an anonymous one names no one', async () => {
  const { el } = await chat({});
  const source = FakeEventSource.opened[0];
  const anonymous = { principal: { iss: 'stalwart:none', sub: 'anonymous', verified: false }, by: 'anonymous' };
  const answers = [
    { decision: 'skip', ...anonymous },
    { decision: 'cancel_all' },
    { decision: 'answer', value: '40', kind: 'ask' },
    { decision: 'happened' },
    { decision: 'did_not_happen' },
    { decision: 'approve', outcome: 'approval' },
    { decision: 'approve', outcome: 'refused', error: 'not_an_approver' },
    { decision: 'approve', kind: 'delegate', title: '' },
    { decision: 'escalate' },
  ];
  answers.forEach((answer, i) => source.emit('answer', { ...APPROVED, ...answer, pause: `p_${i}` }, i + 1));
  await settle(el);
  assert.deepEqual($$(el, '.record .what').map(words), [
    'You skipped: Charge 40 to order 4411',
    'Cancelled: Charge 40 to order 4411',
    'You answered 40: Charge 40 to order 4411',
    'You said it happened: Charge 40 to order 4411',
    'You said it did not happen: Charge 40 to order 4411',
    'You approved, and more approvals are needed: Charge 40 to order 4411',
    'You passed it on to the assistant',
    'You answered escalate: Charge 40 to order 4411',
  ]);
  assert.doesNotMatch(words($$(el, '.record .meta')[0]), /by /);
});

test('the decision record survives a reload', async () => {
  const first = await chat({
    'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [CHARGE], not_notified: [] },
    'POST /threads/u-17/resume': reply('Done: charge_card.'),
  });
  $($(first.el, 'stalwart-confirm'), 'button[data-answer=skip]').click();
  await settle(first.el);
  first.el.remove();
  const { el } = await chat({});
  assert.deepEqual($$(el, '.record .what').map(words), ['You skipped: Charge 40 to order 4411']);
});

test('while a run waits the composer is disabled and keeps what was typed; it comes back when nothing waits', async () => {
  let waiting = [];
  const { el } = await chat({ 'GET /threads/u-17/interrupts': () => ({ thread: 'u-17', waiting, not_notified: [] }) });
  const area = $(el, 'textarea');
  area.value = 'and refund order 4412';
  area.dispatchEvent(new window.Event('input'));
  waiting = [CHARGE];
  FakeEventSource.opened[0].emit('pause', { type: 'pause', pause: { id: CHARGE.id } }, 1);
  await settle(el);
  assert.ok($(el, 'textarea').disabled);
  assert.ok($(el, '[part=composer] button').disabled);
  assert.equal($(el, 'textarea').value, 'and refund order 4412');
  waiting = [];
  FakeEventSource.opened[0].emit('answer', APPROVED, 2);
  await settle(el);
  assert.ok(!$(el, 'textarea').disabled);
  assert.equal($(el, 'textarea').value, 'and refund order 4412');
});

test('an ask waiting leaves one Send button on the page enabled, its card\'s', async () => {
  const ask = { ...CHARGE, kind: 'ask', answers: ['answer'], prompt: 'What amount should Charge a card use?', irreversible: false };
  const { el } = await chat({ 'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [ask], not_notified: [] } });
  const confirm = $(el, 'stalwart-confirm');
  const enabled = [...$$(el, 'button'), ...$$(confirm, 'button')].filter((button) => !button.disabled && words(button) === 'Send');
  assert.equal(enabled.length, 1);
  assert.ok(confirm.shadowRoot.contains(enabled[0]));
});

test('a refusal is shown once: as its own element, not again in the reply\'s words', async () => {
  const sentence = 'Charges over 500 go through the finance desk, not the chat.';
  const { el } = await chat({
    'POST /threads/u-17/messages': reply(sentence, { refusals: [{ step: 1, tool: 'charge_card', arguments: [], sentence, rule: 'charges-over-500' }] }),
  });
  await type(el, 'charge 600 to order 4413');
  assert.equal($$(el, 'stalwart-decision').length, 1);
  assert.equal($$(el, '.reply').length, 0, 'a reply that only repeated the refusal is not shown');
  const { el: other } = await chat({
    'POST /threads/u-17/messages': reply(`Done: look_up_order. ${sentence}`, { refusals: [{ step: 2, tool: 'charge_card', arguments: [], sentence, rule: null }] }),
  });
  await type(other, 'look up order 4413 and charge 600 to order 4413');
  assert.deepEqual($$(other, '.reply .text').map(words), ['Done: look_up_order.']);
});

test('the empty page shows the agent\'s name, description and examples; an example goes into the composer', async () => {
  const { el, fetcher } = await chat({ 'GET /config.json': ABOUT });
  assert.ok(fetcher.calls.some((call) => call.path === '/config.json'));
  assert.equal(words($(el, '.about h2')), 'shop');
  assert.equal(words($(el, '.about .description')), ABOUT.description);
  assert.equal(words($(el, '.about h3')), 'Try');
  const examples = $$(el, '.about .examples button');
  assert.deepEqual(examples.map(words), ABOUT.examples);
  examples[1].click();
  await settle(el);
  assert.equal($(el, 'textarea').value, 'charge 40 to order 4411');
  assert.equal(el.shadowRoot.activeElement, $(el, 'textarea'));
});

test('the agent\'s description goes once the conversation begins, and a service without /config.json shows none', async () => {
  const { el } = await chat({ 'GET /config.json': ABOUT, 'POST /threads/u-17/messages': reply('hello') });
  await type(el, 'hi');
  assert.equal($(el, '.about'), null);
  document.body.innerHTML = '';
  sessionStorage.clear();
  const { el: bare } = await chat({});
  assert.equal($(bare, '.about'), null);
  assert.equal(words($(bare, '[part=status]')), '', 'no error for a service that does not describe its agent');
});
