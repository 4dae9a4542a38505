// Deadlines in a DOM (happy-dom): a card says by when to answer and who else is asked (from the card the server
// builds, or from the pause's own fields), turns urgent under an hour, and once nobody answered in time says so in
// place of its answers: when its deadline passes while it is shown, and when a late answer is refused 410
// pause_expired (the chat re-reads what waits and records it; the inbox keeps the row).  A step that expired has
// its words, and the clock's answer event is recorded as nobody answering, never as "clock answered expired".
import { window } from './dom.js';
import { $, $$, words, mount, violations } from './page.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, test } from 'node:test';
import { FakeEventSource, fakeFetch, settle } from './fakes.js';
import { whenText } from '../src/record.js';

const { setStrings, shipped } = await import('../dist/agent-ui.js');
window.eval(readFileSync(new URL('../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8'));

const HOUR = 3600 * 1000;
const said = (key, values = {}) => ({ key, values });
const iso = (ms) => new Date(ms).toISOString();
const TITLE = 'Charge 40.00 EUR to order 4411';
const ANSWERS = [
  { decision: 'approve', words: said('approve'), style: 'primary' },
  { decision: 'skip', words: said('skip'), style: 'secondary' },
  { decision: 'cancel_all', words: said('cancelAll'), style: 'danger' },
];

/** The shop's charge, due `left` ms from now, as the backend lists it with its card. */
function charge({ left = 4 * HOUR, onExpiry = 'skip', escalation = null, card = {}, ...extra } = {}) {
  const expires = iso(Date.now() + left);
  const escalated = escalation && { at: iso(Date.now() + left / 2), done: false, to: 'the managers', ...escalation };
  return {
    id: 'p_1.aaa', kind: 'confirm', thread: 'u-17', run: 'r_1', step: 2, tool: 'charge_card', label: 'Charge a card', title: TITLE,
    question: `${TITLE}?`, arguments: [{ name: 'amount', label: 'Amount', value: 40, origin: 'typed' }], reasons: ['write'],
    irreversible: false, answers: ['approve', 'skip', 'cancel_all'], token: 'tok-1', created_at: iso(Date.now() - HOUR),
    turn: 'charge 40 to order 4411', expires_at: expires, on_expiry: onExpiry, ...(escalated ? { escalation: escalated } : {}),
    card: {
      kind: 'confirm', title: TITLE, question: `${TITLE}?`, irreversible: false,
      arguments: [{ name: 'amount', label: 'Amount', value: 40, shown: '40.00 EUR', origin: said('origin_typed') }],
      reasons: [said('reason_write')], deciders: null, asked: said('askedByYou', { when: iso(Date.now() - HOUR) }), answers: ANSWERS,
      waits_for: null, deadline: said(onExpiry === 'cancel_all' ? 'deadlineCancel' : 'deadlineSkip', { when: expires }),
      escalation: escalated ? said('escalatesAt', { who: escalated.to, when: escalated.at }) : null, ...card,
    },
    ...extra,
  };
}

const reply = (text, extra = {}) => ({ thread: 'u-17', reply: { id: 'm-1', text }, steps: [], waiting: [], refusals: [], rollback: null, not_notified: [], ...extra });

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  FakeEventSource.opened = [];
  document.title = 'Deadlines';
  document.documentElement.lang = 'en';
});
afterEach(() => {
  document.body.innerHTML = '';
  setStrings(shipped);
});

// The card

test('the card says by when to answer, in the reader\'s time, and who else is asked, under who asked', async () => {
  const pause = charge({ escalation: {} });
  const el = await mount('stalwart-confirm', { interrupt: pause });
  const deadline = $(el, '[part=deadline]');
  assert.equal(words(deadline), `Answer by ${whenText(pause.expires_at)}; after that it is skipped.`);
  assert.equal(deadline.dataset.when, pause.expires_at);
  assert.equal(deadline.dataset.key, 'deadlineSkip');
  assert.ok(!deadline.hasAttribute('data-urgent'), 'four hours left is not urgent');
  assert.equal(words($(el, '[part=escalation]')), `If nobody answers by ${whenText(pause.escalation.at)}, the managers will be asked too.`);
  const order = [...$(el, '[part=confirm]').children].map((child) => child.getAttribute('part') ?? child.tagName.toLowerCase());
  assert.deepEqual(order.slice(0, 4), ['h2', 'asked', 'deadline', 'escalation']);
  assert.equal($$(el, '[part=choices] button').length, 3);
  assert.equal($(el, '[part=expired]'), null);
  assert.deepEqual(await violations(), []);
});

test('a deadline that cancels everything says so, and under an hour left it looks urgent', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge({ left: 20 * 60 * 1000, onExpiry: 'cancel_all' }) });
  const deadline = $(el, '[part=deadline]');
  assert.match(words(deadline), /^Answer by .+; after that the whole request is cancelled\.$/);
  assert.ok(deadline.hasAttribute('data-urgent'));
  assert.equal($(el, '[part=escalation]'), null, 'no escalation, no line');
});

test('the card\'s escalation once done, and one with nobody named (sent again as overdue)', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge({ card: { escalation: said('escalated', { who: 'the managers' }) } }) });
  assert.equal(words($(el, '[part=escalation]')), 'Nobody has answered yet, so the managers may answer now too.');
  const at = iso(Date.now() + HOUR);
  el.interrupt = charge({ card: { escalation: said('overdueAt', { when: at }) } });
  await settle(el);
  assert.equal(words($(el, '[part=escalation]')), `If nobody answers by ${whenText(at)}, it is sent again as overdue.`);
  el.interrupt = charge({ card: { escalation: said('escalatedOverdue') } });
  await settle(el);
  assert.equal(words($(el, '[part=escalation]')), 'Overdue: nobody has answered in time.');
});

test('a pause without a card says its deadline and escalation from its own fields', async () => {
  const pause = charge({ onExpiry: 'cancel_all', escalation: { to: null } });
  delete pause.card;
  const el = await mount('stalwart-confirm', { interrupt: pause });
  assert.equal(words($(el, '[part=deadline]')), `Answer by ${whenText(pause.expires_at)}; after that the whole request is cancelled.`);
  assert.equal(words($(el, '[part=escalation]')), `If nobody answers by ${whenText(pause.escalation.at)}, it is sent again as overdue.`);
  el.interrupt = { ...pause, escalation: { ...pause.escalation, done: true, to: 'the managers' } };
  await settle(el);
  assert.equal(words($(el, '[part=escalation]')), 'Nobody has answered yet, so the managers may answer now too.');
  el.interrupt = { ...pause, expires_at: undefined, escalation: undefined };
  await settle(el);
  assert.equal($(el, '[part=deadline]'), null);
  assert.equal($(el, '[part=escalation]'), null);
});

test('a card whose deadline has passed says nobody answered in time in place of its answers', async () => {
  const pause = charge({ left: -60 * 1000 });
  const el = await mount('stalwart-confirm', { interrupt: pause });
  assert.equal(words($(el, '[part=expired]')), `Nobody answered by ${whenText(pause.expires_at)}, so it was skipped.`);
  assert.equal($(el, '[part=choices]'), null, 'no answer is offered');
  assert.equal($(el, '[part=deadline]'), null);
  assert.ok($(el, '[part=confirm]').hasAttribute('data-expired'));
  assert.equal(words($(el, 'h2')), TITLE, 'what it was about stays');
  el.interrupt = charge({ left: -60 * 1000, onExpiry: 'cancel_all' });
  await settle(el);
  assert.match(words($(el, '[part=expired]')), /^Nobody answered by .+, so the whole request was cancelled\.$/);
  assert.deepEqual(await violations(), []);
});

test('a deadline that passes while the card is shown takes its answers away', async () => {
  const el = await mount('stalwart-confirm', { interrupt: charge({ left: 150 }) });
  assert.ok($(el, '[part=deadline]').hasAttribute('data-urgent'));
  assert.equal($$(el, '[part=choices] button').length, 3);
  await new Promise((resolve) => setTimeout(resolve, 400));
  await settle(el);
  assert.match(words($(el, '[part=expired]')), /^Nobody answered by .+, so it was skipped\.$/);
  assert.equal($(el, '[part=choices]'), null);
});

test('an outcome_unknown\'s deadline never ends it: its answers stay', async () => {
  const pause = { ...charge({ left: -60 * 1000 }), kind: 'outcome_unknown', answers: ['happened', 'did_not_happen'] };
  delete pause.card;
  const el = await mount('stalwart-confirm', { interrupt: pause });
  assert.equal($(el, '[part=expired]'), null);
  assert.equal($$(el, '[part=choices] button').length, 2);
});

test('setStrings replaces a deadline\'s words', async () => {
  const pause = charge({ escalation: {} });
  const el = await mount('stalwart-confirm', { interrupt: pause });
  setStrings({ deadlineSkip: 'Responda até {when}; depois disso, é pulado.', escalatesAt: 'Se ninguém responder até {when}, {who} também será consultado.' });
  await settle(el);
  assert.equal(words($(el, '[part=deadline]')), `Responda até ${whenText(pause.expires_at)}; depois disso, é pulado.`);
  assert.match(words($(el, '[part=escalation]')), /também será consultado\.$/);
});

// The chat

test('a late answer (410 pause_expired): the card says so, what waits is read again, and the log records it once', async () => {
  const pause = charge();
  let reads = 0;
  const fetcher = fakeFetch({
    'GET /threads/u-17/interrupts': () => ({ thread: 'u-17', waiting: reads++ ? [] : [pause], not_notified: [] }),
    'POST /threads/u-17/resume': {
      status: 410,
      body: { error: 'pause_expired', message: `this pause expired at ${pause.expires_at}: nobody answered in time, so ${TITLE} was not done; nothing you sent was done` },
    },
  });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 'u-17' });
  const confirm = $(el, 'stalwart-confirm');
  $(confirm, 'button[data-answer=approve]').click();
  await settle(el);
  assert.equal(reads, 2, 'what waits was read again');
  assert.equal($(el, 'stalwart-confirm'), null, 'the pause the deadline ended waits no more');
  assert.equal(words($(el, '[part=status]')), '', 'no error: the record says what happened');
  const record = $(el, '[part=log] .record');
  assert.equal(words(record.querySelector('.what')), `Nobody answered in time, so it was not done: ${TITLE}`);
  assert.equal(record.dataset.decision, 'expired');
  assert.equal(el.shadowRoot.activeElement, record);
  FakeEventSource.opened[0].emit('answer', {
    type: 'answer', run: 'r_1', pause: pause.id, title: TITLE, kind: 'confirm', tool: 'charge_card', decision: 'expired', value: null,
    channel: 'clock', by: 'clock', principal: { iss: 'stalwart:clock', sub: 'deadline' }, verified: false, outcome: 'taken', at: pause.expires_at,
  }, 5);
  await settle(el);
  assert.deepEqual($$(el, '[part=log] .record .what').map(words), [`Nobody answered in time, so it was not done: ${TITLE}`], 'the clock\'s event completes it');
  assert.ok(!$(el, 'textarea').disabled, 'nothing waits: the person may write again');
});

test('while the card is still shown after a 410, it says nobody answered in time, with no answers', async () => {
  const pause = charge();
  let release;
  const fetcher = fakeFetch({
    'GET /threads/u-17/interrupts': () => (release ? new Promise((resolve) => (release = () => resolve({ waiting: [] }))) : { waiting: [pause] }),
    'POST /threads/u-17/resume': () => {
      release = () => {};
      return { status: 410, body: { error: 'pause_expired', message: 'this pause expired' } };
    },
  });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 'u-17' });
  $($(el, 'stalwart-confirm'), 'button[data-answer=approve]').click();
  await settle(el);
  const confirm = $(el, 'stalwart-confirm');
  await settle(confirm);
  assert.equal(words($(confirm, '[part=expired]')), `Nobody answered by ${whenText(pause.expires_at)}, so it was skipped.`);
  assert.equal($(confirm, '[part=choices]'), null);
  release();
  await settle(el);
  assert.equal($(el, 'stalwart-confirm'), null);
});

test('the clock\'s answer event is recorded as nobody answering in time', async () => {
  const fetcher = fakeFetch({ 'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [], not_notified: [] } });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 'u-17' });
  FakeEventSource.opened[0].emit('answer', {
    type: 'answer', pause: 'p_1.aaa', title: TITLE, kind: 'confirm', tool: 'charge_card', decision: 'expired', channel: 'clock', by: 'clock',
    principal: { iss: 'stalwart:clock', sub: 'deadline' }, outcome: 'taken', at: '2027-01-15T12:00:00.000Z',
  }, 1);
  await settle(el);
  assert.deepEqual($$(el, '[part=log] .record .what').map(words), [`Nobody answered in time, so it was not done: ${TITLE}`]);
  assert.equal(words($(el, '[part=log] .record .meta')), whenText('2027-01-15T12:00:00.000Z'));
});

// The inbox

async function inbox(backend) {
  const fetcher = fakeFetch(backend);
  const el = await mount('stalwart-inbox', { fetcher });
  for (const confirm of $$(el, 'stalwart-confirm')) await settle(confirm);
  return { el, fetcher };
}

test('an inbox row shows its deadline; a late answer keeps the row, saying nobody answered in time', async () => {
  const pause = charge();
  const { el, fetcher } = await inbox({
    'GET /interrupts': { waiting: [pause], next: null },
    'POST /threads/u-17/resume': { status: 410, body: { error: 'pause_expired', message: 'this pause expired' } },
  });
  const confirm = $(el, '[part=row] stalwart-confirm');
  assert.equal(words($(confirm, '[part=deadline]')), `Answer by ${whenText(pause.expires_at)}; after that it is skipped.`);
  $(confirm, 'button[data-answer=approve]').click();
  await settle(el);
  const row = $(el, '[part=row]');
  const shown = row.querySelector('stalwart-confirm');
  await settle(shown);
  assert.equal(words($(shown, '[part=expired]')), `Nobody answered by ${whenText(pause.expires_at)}, so it was skipped.`);
  assert.equal($(shown, '[part=choices]'), null);
  assert.equal($(el, '[part=row-error]'), null, 'the card says it, in words, not the service\'s message');
  assert.equal(words($(el, '[part=status]')), `${TITLE}: not done, nobody answered in time`);
  assert.equal(el.shadowRoot.activeElement, row);
  assert.deepEqual(fetcher.calls.map((call) => call.method), ['GET', 'POST'], 'nothing read again: the row stays, to say so');
});

test('a step that expired is said in words in what an answer did', async () => {
  const first = charge();
  const second = { ...charge(), id: 'p_2.aaa', thread: 'u-18', step: 3, token: 'tok-2' };
  const { el } = await inbox({
    'GET /interrupts': { waiting: [second, first], next: null },
    'POST /threads/u-18/resume': reply('Nobody answered about charge_card in time, so it was not done.', {
      thread: 'u-18', steps: [{ step: 3, tool: 'charge_card', status: 'expired', result: null }],
    }),
  });
  $($(el, '[part=row] stalwart-confirm'), 'button[data-answer=skip]').click();
  await settle(el);
  assert.deepEqual($$(el, '[part=status] .line').map(words), [`You answered Skip this step: ${TITLE}`, `${TITLE}: not done, nobody answered in time`]);
});
