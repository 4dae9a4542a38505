// <stalwart-history> in a DOM (happy-dom): a thread's decisions as GET {base}/threads/{thread}/decisions lists
// them, and the chat's disclosure that opens them.
import { window } from './dom.js';
import { $, $$, words, mount, violations } from './page.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, test } from 'node:test';
import { FakeEventSource, fakeFetch, settle } from './fakes.js';

const { setStrings, shipped } = await import('../dist/agent-ui.js');
const { durationText, recordOfDecision } = await import('../src/components/stalwart-history/stalwart-history.js');
window.eval(readFileSync(new URL('../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8'));

const TAG = 'AbCdEfGhIjKlMnOpQrStUv';
const FIONA = { issuer: 'https://idp', subject: 'u-9', name: 'Fiona Walsh', verified: 'token' };
const hex = (c) => c.repeat(64);

/** One decision as the route lists it; `extra` changes any of it. */
const decision = (seq, extra = {}) => ({
  seq, at: '2026-12-02T03:50:10.123Z', asked_at: '2026-12-02T03:50:00.000Z', waited: 10.123,
  pause: `p_${seq}.aaa`, run: `r_${seq}`, kind: 'confirm', tool: 'charge_card', title: 'Charge 40.00 EUR to order 4411',
  decision: 'approve', outcome: 'taken', value: null, by: FIONA, mine: false, channel: 'http', rules: [], approvals: null, edits: [],
  prev: hex(String(seq - 1)), digest: hex(String(seq)),
  ...extra,
});
const record = (decisions, intact = true) => ({ thread: `${TAG}:u-17`, intact, decisions });

async function history(routes, attributes = { thread: `${TAG}:u-17` }) {
  const fetcher = fakeFetch(routes);
  const el = await mount('stalwart-history', { fetcher }, attributes);
  return { el, fetcher };
}
const entries = (el) => $$(el, '[part=history-entry]');

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  FakeEventSource.opened = [];
  document.title = 'Decisions';
  document.documentElement.lang = 'en';
});
afterEach(() => {
  document.body.innerHTML = '';
  setStrings(shipped);
});

test('the decisions are a labelled ordered list, oldest first, each said as the conversation records it', async () => {
  const path = `/threads/${encodeURIComponent(`${TAG}:u-17`)}/decisions`;
  const { el, fetcher } = await history({
    [`GET ${path}`]: record([
      decision(2, { decision: 'skip', mine: true, by: { ...FIONA, name: 'Alice Moreau' }, at: '2026-12-02T04:00:00.000Z' }),
      decision(1),
    ]),
  });
  assert.deepEqual(fetcher.calls.map((call) => `${call.method} ${call.path}`), [`GET ${path}`]);
  const list = $(el, '[part=history-list]');
  assert.equal(list.tagName, 'OL');
  assert.equal(words(el.shadowRoot.getElementById(list.getAttribute('aria-labelledby'))), 'Decisions');
  assert.deepEqual($$(el, '[part=history-what]').map(words), [
    'Fiona Walsh approved: Charge 40.00 EUR to order 4411',
    'You skipped: Charge 40.00 EUR to order 4411',
  ], 'oldest first, by seq, whatever order the body lists them in');
  assert.ok($$(el, '[part=history-what]').every((heading) => heading.tagName === 'H3'));
  assert.equal(words($(el, '[part=history-rule]')), 'No approver rule: the person who asked decides');
  const when = $(el, '[part=history-when] time');
  assert.equal(when.getAttribute('datetime'), '2026-12-02T03:50:10.123Z');
  assert.match(words($(el, '[part=history-when]')), /· in the app · waited 10 sec$/);
  assert.equal(words($(el, '[part=history-wait]')), 'waited 10 sec');
  assert.ok($(el, '[part=history-empty]').hidden);
  assert.equal($(el, '[part=history-broken]'), null);
  assert.equal($(el, '[part=history-approvals]'), null, 'one person decides: no count');
  assert.deepEqual(await violations(), []);
});

test('no internal id is shown: not the pause, the run, the digests nor the thread\'s tag; the digest is kept in data-digest', async () => {
  const { el } = await history({ [`GET /threads/${encodeURIComponent(`${TAG}:u-17`)}/decisions`]: record([decision(1)]) });
  const text = words(el.shadowRoot.querySelector('[part=history]'));
  for (const hidden of ['p_1.aaa', 'r_1', hex('1'), hex('0'), TAG, 'u-9']) assert.ok(!text.includes(hidden), hidden);
  assert.equal(entries(el)[0].dataset.digest, hex('1'));
  assert.equal($$(el, '[title]').length, 0, 'no tooltip: it reaches neither a keyboard nor a touch screen');
});

test('a record changed since it was written is said first, as an alert, and its entries still shown', async () => {
  const { el } = await history({ 'GET /threads/u-17/decisions': record([decision(1), decision(3)], false) }, { thread: 'u-17' });
  const broken = $(el, '[part=history-broken]');
  assert.equal(broken.getAttribute('role'), 'alert');
  assert.match(words(broken), /^This record does not match what was written: a decision in it was changed, removed or put out of order since\./);
  assert.ok(broken.compareDocumentPosition($(el, '[part=history-list]')) & window.Node.DOCUMENT_POSITION_FOLLOWING, 'before the list');
  assert.equal(entries(el).length, 2);
});

test('four eyes, an approver rule, changes by label, an ask\'s answer, the clock, and a long wait through Slack', async () => {
  const edits = [{ name: 'amount', label: 'Amount', asked: 150, value: 120, from: '150.00 EUR', to: '120.00 EUR' }];
  const { el } = await history({
    'GET /threads/u-17/decisions': record([
      decision(1, { outcome: 'approval', rules: ['finance'], approvals: { given: 1, needed: 2 }, channel: 'slack', by: { ...FIONA, verified: 'slack' }, waited: 5400 }),
      decision(2, { rules: ['finance', 'legal'], approvals: { given: 2, needed: 2 }, edits, by: { ...FIONA, name: 'Omar Haddad' }, channel: 'mail', waited: 90061 }),
      decision(3, { kind: 'ask', decision: 'answer', value: '40', mine: true, channel: 'link', waited: 240 }),
      decision(4, { decision: 'skip', by: { issuer: 'stalwart:clock', subject: 'clock', name: null, verified: 'clock' }, channel: 'clock', waited: 3600 }),
      decision(5, { by: { issuer: 'stalwart:none', subject: 'anonymous', name: null, verified: 'none' }, channel: 'python' }),
    ]),
  }, { thread: 'u-17' });
  assert.deepEqual($$(el, '[part=history-what]').map(words), [
    'Fiona Walsh approved, and more approvals are needed: Charge 40.00 EUR to order 4411',
    'Omar Haddad approved: Charge 40.00 EUR to order 4411',
    'You answered 40: Charge 40.00 EUR to order 4411',
    'Nobody answered in time, so it was not done: Charge 40.00 EUR to order 4411',
    'Someone approved: Charge 40.00 EUR to order 4411',
  ]);
  assert.deepEqual($$(el, '[part=history-approvals]').map(words), ['1 of 2 approvals', '2 of 2 approvals']);
  assert.deepEqual($$(el, '[part=history-rule]').map(words).slice(0, 2), ['Approver rule: finance', 'Approver rule: finance, legal']);
  assert.equal(words($(el, '[part=history-changes]')), 'Changed before approving: Amount: 150.00 EUR → 120.00 EUR');
  assert.deepEqual($$(el, '[part=history-wait]').map(words), ['waited 1 hr 30 min', 'waited 1 day 1 hr', 'waited 4 min', 'waited 1 hr', 'waited 10 sec']);
  const channels = $$(el, '[part=history-when]').map((line) => words(line).replace(/^.*? · /, ''));
  assert.deepEqual(channels, [
    'in Slack · waited 1 hr 30 min',
    'by email · waited 1 day 1 hr',
    'through a one-time link · waited 4 min',
    'by the deadline · waited 1 hr',
    'from a program (identity not checked) · waited 10 sec',
  ]);
  assert.deepEqual(await violations(), []);
});

test('how long a pause waited, in the page\'s language', () => {
  assert.deepEqual([0.2, 59.4, 60, 89, 3600, 5400, 86400, 90061, 3 * 86400].map(durationText), [
    '1 sec', '59 sec', '1 min', '1 min', '1 hr', '1 hr 30 min', '1 day', '1 day 1 hr', '3 days',
  ]);
  assert.equal(durationText(Number.NaN), '');
  assert.equal(durationText(-1), '');
});

test('an entry\'s record: the reader\'s own is "You", a change asked again says its changes, a missing name is "Someone"', () => {
  assert.equal(recordOfDecision(decision(1, { mine: true })).who, '');
  const edited = recordOfDecision(decision(1, { decision: 'edited', edits: [{ name: 'amount', label: 'Amount', from: '150.00 EUR', to: '120.00 EUR' }] }));
  assert.equal(edited.edits.length, 1);
  assert.equal(recordOfDecision(decision(1, { by: null })).who, 'Someone');
  assert.equal(recordOfDecision(decision(1, { by: { ...FIONA, name: '' } })).who, 'u-9', 'the subject where no name is given, as the chat does');
});

test('an empty history says so; a thread the reader may not read (404) is an empty one, not an error', async () => {
  const { el } = await history({ 'GET /threads/u-17/decisions': record([]) }, { thread: 'u-17' });
  assert.ok(!$(el, '[part=history-empty]').hidden);
  assert.equal(words($(el, '[part=history-empty]')), 'No decisions yet.');
  assert.ok($(el, '[part=history-list]').hidden);
  const other = await history({}, { thread: 'u-18' });
  assert.equal(words($(other.el, '[part=history-empty]')), 'No decisions yet.');
  assert.equal(words($(other.el, '[part=history-status]')), '');
  assert.deepEqual(await violations(), []);
});

test('loading, then an error in the status; Refresh reads again, with the headers the fetcher adds', async () => {
  let reads = 0;
  /** @type {(value?: unknown) => void} */
  let release = () => {};
  const gate = new Promise((resolve) => (release = resolve));
  const { el, fetcher } = await history({
    'GET /agent/threads/u-17/decisions': async () => {
      reads += 1;
      if (reads === 1) {
        await gate;
        return { status: 503, body: { error: 'storage_unavailable', message: 'The store is unavailable' } };
      }
      return record([decision(1)]);
    },
  }, { thread: 'u-17', base: '/agent/' });
  assert.equal(words($(el, '[part=history-status]')), 'Loading…');
  assert.equal($(el, '[part=history]').getAttribute('aria-busy'), 'true');
  release();
  await settle(el);
  const status = $(el, '[part=history-status]');
  assert.equal(status.getAttribute('role'), 'status');
  assert.equal(words(status), 'Something went wrong: The store is unavailable');
  assert.ok(status.classList.contains('bad'));
  $(el, '[part=history-refresh]').click();
  await settle(el);
  assert.equal(words($(el, '[part=history-status]')), '');
  assert.equal(entries(el).length, 1);
  assert.equal(fetcher.calls.length, 2);
});

test('an operator\'s fetcher sends its header; a new thread reads afresh', async () => {
  const routes = { 'GET /threads/u-17/decisions': record([decision(1)]), 'GET /threads/u-18/decisions': record([]) };
  const plain = fakeFetch(routes);
  const operator = (url, init = {}) => plain(url, { ...init, headers: { ...init.headers, 'Stalwart-Operator-Token': 'op' } });
  operator.calls = plain.calls;
  const el = await mount('stalwart-history', { fetcher: operator }, { thread: 'u-17' });
  assert.equal(plain.calls[0].headers.get('Stalwart-Operator-Token'), 'op');
  assert.equal(entries(el).length, 1);
  el.setAttribute('thread', 'u-18');
  await settle(el);
  assert.equal(entries(el).length, 0);
  assert.ok(!$(el, '[part=history-empty]').hidden);
});

test('the words are the page\'s strings', async () => {
  setStrings({ historyTitle: 'Entscheidungen', historyOwner: 'Es entscheidet, wer gefragt hat', channel_http: 'in der App' });
  const { el } = await history({ 'GET /threads/u-17/decisions': record([decision(1)]) }, { thread: 'u-17' });
  assert.equal(words($(el, '[part=history-title]')), 'Entscheidungen');
  assert.equal(words($(el, '[part=history-rule]')), 'Es entscheidet, wer gefragt hat');
  assert.match(words($(el, '[part=history-when]')), /in der App/);
});

// The chat's way in.

test('the chat opens the thread\'s decisions in a disclosure, read only once it is opened, and again on each answer', async () => {
  const fetcher = fakeFetch({
    'GET /threads/t-9/interrupts': { thread: 't-9', waiting: [], not_notified: [] },
    'GET /threads/t-9/decisions': record([decision(1, { mine: true })]),
  });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 't-9' });
  const decisions = () => fetcher.calls.filter((call) => call.path.endsWith('/decisions')).length;
  const details = $(el, 'details[part=decisions]');
  assert.equal(words(details.querySelector('summary')), 'Decisions');
  assert.equal(details.querySelector('stalwart-history'), null);
  assert.equal(decisions(), 0, 'nothing read before it is asked for');
  details.open = true;
  details.dispatchEvent(new Event('toggle'));
  await settle(el);
  const inside = details.querySelector('stalwart-history');
  await settle(inside);
  assert.equal(inside.getAttribute('thread'), 't-9');
  assert.equal(inside.fetcher, fetcher);
  assert.ok(inside.getAttribute('exportparts').includes('history-entry'));
  assert.equal(decisions(), 1);
  assert.deepEqual($$(inside, '[part=history-what]').map(words), ['You approved: Charge 40.00 EUR to order 4411']);
  FakeEventSource.opened[0].emit('answer', { type: 'answer', pause: 'p_2', decision: 'skip', title: 'x', outcome: 'taken', by_owner: true }, 1);
  await settle(el);
  await settle(inside);
  assert.equal(decisions(), 2, 'a decision while it is open reads it again');
  details.open = false;
  details.dispatchEvent(new Event('toggle'));
  await settle(el);
  assert.equal(details.querySelector('stalwart-history'), null);
  assert.deepEqual(await violations(), []);
});
