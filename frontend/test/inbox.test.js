// <stalwart-inbox> in a DOM (happy-dom): what waits across threads, as the backend's
// GET /interrupts lists it, and the decisions it sends back through each thread's resume.
import { window } from './dom.js';
import { $, $$, words } from './page.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, test } from 'node:test';
import { fakeFetch, settle } from './fakes.js';

const { setStrings, shipped } = await import('../dist/agent-ui.js');
window.eval(readFileSync(new URL('../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8'));

const pause = (n, extra = {}) => ({
  id: `p_${n}.aaa`, kind: 'confirm', thread: `u-${n}`, run: `r_${n}`, step: 1, tool: 'charge_card', question: 'Run charge_card?',
  arguments: [{ name: 'amount', value: 40 * n, origin: 'typed' }], reasons: ['write'], irreversible: false,
  answers: ['approve', 'skip', 'cancel_all'], token: `tok-${n}`, created_at: '2025-01-01T00:00:00.000Z', turn: `charge ${40 * n} to order ${n}`,
  ...extra,
});
const FOUR_EYES = { needed: 2, given: [] };
const ALICE = { by: 'alice@example.com', principal: { iss: 'https://id.example.com', sub: 'alice', verified: true }, at: '2025-01-01T00:01:00.000Z' };
const answer = (waiting = []) => ({ thread: 'u-1', reply: { id: 'm-1', text: 'Done.' }, steps: [], waiting, refusals: [], rollback: null, not_notified: [] });

const routes = (fetcher) => fetcher.calls.map((call) => `${call.method} ${call.url}`);
const rows = (el) => $$(el, '[part=row]');
const threads = (el) => rows(el).map((row) => row.dataset.thread);

async function inbox(backend, attributes = {}) {
  const fetcher = fakeFetch(backend);
  const el = document.createElement('stalwart-inbox');
  el.fetcher = fetcher;
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  document.body.append(el);
  await settle(el);
  await Promise.all(rows(el).map((row) => settle(row.querySelector('stalwart-confirm'))));
  return { el, fetcher };
}

async function choose(el, index, label) {
  const confirm = rows(el)[index].querySelector('stalwart-confirm');
  $(confirm, `button[data-answer=${label}]`).click();
  await settle(el);
  for (const row of rows(el)) await settle(row.querySelector('stalwart-confirm'));
}

/** axe-core's WCAG 2 A/AA rules; colour contrast needs layout, which happy-dom has not (the browser test checks it). */
async function violations() {
  const result = await window.axe.run(document, {
    runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'],
    rules: { 'color-contrast': { enabled: false } },
  });
  // Array.from: axe runs in happy-dom's realm, whose arrays deepEqual does not take for ours.
  return Array.from(result.violations, (v) => `${v.id}: ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`);
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

test('each pause is a row of a labelled list, headed by its thread\'s words, with its confirmation', async () => {
  const { el, fetcher } = await inbox({ 'GET /interrupts': { waiting: [pause(1), pause(2)], next: null } });
  assert.deepEqual(routes(fetcher), ['GET /interrupts?limit=50']);
  const list = $(el, '[part=list]');
  assert.equal(list.getAttribute('role'), 'list');
  assert.equal(words(el.shadowRoot.getElementById(list.getAttribute('aria-labelledby'))), 'Waiting for a decision');
  assert.deepEqual($$(el, '[part=thread]').map(words), ['charge 40 to order 1', 'charge 80 to order 2'], 'the thread\'s words, not its id');
  assert.deepEqual($$(el, '[part=thread] q[part=last-words]').map(words), ['charge 40 to order 1', 'charge 80 to order 2']);
  assert.deepEqual(threads(el), ['u-1', 'u-2']);
  const label = (row) => words(el.shadowRoot.getElementById(row.getAttribute('aria-labelledby')));
  assert.deepEqual(rows(el).map(label), ['charge 40 to order 1', 'charge 80 to order 2'], 'each row is named by its thread\'s words');
  const confirms = $$(el, 'stalwart-confirm');
  assert.deepEqual(confirms.map((confirm) => confirm.interrupt.id), ['p_1.aaa', 'p_2.aaa']);
  assert.equal(words($(confirms[0], 'h2')), 'Confirm charge_card?');
  assert.ok($(el, '[part=empty]').hidden);
  assert.ok($(el, '[part=more]').hidden);
  assert.equal($(el, '[part=approvals]'), null, 'no approvals line on a pause that needs one person');
  assert.equal($$(el, '[style]').length, 0);
  assert.deepEqual(await violations(), []);
});

test('base, kind, tool and page-size go into the query; a change of filter reads again', async () => {
  const { el, fetcher } = await inbox(
    { 'GET /agent/interrupts': { waiting: [], next: null } },
    { base: '/agent/', kind: 'confirm', tool: 'charge_card', 'page-size': '10' },
  );
  assert.deepEqual(routes(fetcher), ['GET /agent/interrupts?kind=confirm&tool=charge_card&limit=10']);
  el.setAttribute('tool', 'refund card');
  el.removeAttribute('kind');
  await settle(el);
  assert.deepEqual(routes(fetcher).slice(1), ['GET /agent/interrupts?tool=refund+card&limit=10']);
});

test('"Load more" follows next, adds the page below and focuses its first row; the last page takes the button away', async () => {
  const { el, fetcher } = await inbox({
    'GET /interrupts': (call) =>
      new URL(call.url, 'http://x').searchParams.get('cursor') === 'c-2'
        ? { waiting: [pause(3)], next: null }
        : { waiting: [pause(1), pause(2)], next: 'c-2' },
  }, { 'page-size': '2' });
  const more = $(el, '[part=more]');
  assert.ok(!more.hidden);
  assert.equal(words(more), 'Load more');
  more.focus();
  more.click();
  await settle(el);
  assert.deepEqual(routes(fetcher), ['GET /interrupts?limit=2', 'GET /interrupts?limit=2&cursor=c-2']);
  assert.deepEqual(threads(el), ['u-1', 'u-2', 'u-3']);
  assert.ok($(el, '[part=more]').hidden);
  assert.equal(el.shadowRoot.activeElement, rows(el)[2]);
});

test('an empty page with a cursor is read on, and the inbox is not called empty while more may wait', async () => {
  const cursors = { '': 'c-2', 'c-2': 'c-3', 'c-3': 'c-4' };
  const { el, fetcher } = await inbox({
    'GET /interrupts': (call) => {
      const at = new URL(call.url, 'http://x').searchParams.get('cursor') ?? '';
      return at === 'c-3' ? { waiting: [pause(7)], next: 'c-4' } : { waiting: [], next: cursors[at] };
    },
  });
  assert.deepEqual(routes(fetcher), [
    'GET /interrupts?limit=50', 'GET /interrupts?limit=50&cursor=c-2', 'GET /interrupts?limit=50&cursor=c-3',
  ]);
  assert.deepEqual(threads(el), ['u-7']);
  assert.ok($(el, '[part=empty]').hidden && !$(el, '[part=more]').hidden);
});

test('pages that stay empty stop being read on, and still do not call the inbox empty', async () => {
  const { el, fetcher } = await inbox({ 'GET /interrupts': { waiting: [], next: 'again' } });
  assert.equal(routes(fetcher).length, 5); // the first page, and four read on
  assert.ok($(el, '[part=empty]').hidden && !$(el, '[part=more]').hidden);
});

test('an empty inbox says so', async () => {
  const { el } = await inbox({ 'GET /interrupts': { waiting: [], next: null } });
  assert.ok(!$(el, '[part=empty]').hidden);
  assert.equal(words($(el, '[part=empty]')), 'Nothing is waiting for a decision.');
  assert.ok($(el, '[part=list]').hidden);
  assert.deepEqual(await violations(), []);
});

test('Refresh reads the first page again, in place of what was shown', async () => {
  let reads = 0;
  const { el, fetcher } = await inbox({ 'GET /interrupts': () => ({ waiting: ++reads === 1 ? [pause(1), pause(2)] : [pause(4)], next: null }) });
  const refresh = $(el, '[part=refresh]');
  assert.equal(words(refresh), 'Refresh');
  refresh.click();
  await settle(el);
  assert.deepEqual(routes(fetcher), ['GET /interrupts?limit=50', 'GET /interrupts?limit=50']);
  assert.deepEqual(threads(el), ['u-4']);
});

test('a decision posts the thread\'s resume, the row goes, focus moves to the next row and the status says so', async () => {
  const { el, fetcher } = await inbox({
    'GET /interrupts': { waiting: [pause(1), pause(2)], next: null },
    'POST /threads/u-1/resume': answer(),
    'POST /threads/u-2/resume': answer(),
  });
  await choose(el, 0, 'approve');
  const post = fetcher.calls.at(-1);
  assert.equal(post.url, '/threads/u-1/resume');
  assert.equal(post.headers.get('Content-Type'), 'application/json');
  assert.deepEqual(post.body, { interrupt_id: 'p_1.aaa', decision: 'approve', token: 'tok-1' });
  assert.deepEqual(threads(el), ['u-2']);
  assert.equal(el.shadowRoot.activeElement, rows(el)[0]);
  assert.equal(words($(el, '[part=status]')), 'You answered Approve: charge_card', 'what was answered, in words, not a thread id');
  await choose(el, 0, 'skip');
  assert.deepEqual(fetcher.calls.at(-1).body, { interrupt_id: 'p_2.aaa', decision: 'skip', token: 'tok-2' });
  assert.equal(rows(el).length, 0);
  assert.ok(!$(el, '[part=empty]').hidden);
  assert.equal(el.shadowRoot.activeElement, $(el, '[part=empty]'), 'with no row left, focus goes to what an empty inbox says');
});

test('four eyes: who has approved is shown, and an approval that is counted keeps the row, refreshed, taking answers', async () => {
  const first = pause(1, { approvals: FOUR_EYES });
  const counted = { ...pause(1, { approvals: { needed: 2, given: [ALICE] } }), token: 'tok-1b', turn: undefined };
  const { el } = await inbox({
    'GET /interrupts': { waiting: [first, pause(2)], next: null },
    'POST /threads/u-1/resume': answer([counted]),
  });
  assert.equal(words($(el, '[part=approvals]')), 'Needs 2 approvals, none given yet');
  await choose(el, 0, 'approve');
  assert.equal(rows(el).length, 2);
  assert.equal(words($(el, '[part=approvals]')), 'Approved by alice@example.com (1 of 2)');
  assert.equal(words($(el, '[part=last-words]')), 'charge 40 to order 1', 'the thread\'s words stay');
  assert.equal(words($(el, '[part=status]')), 'Your approval is counted; it waits for another person’s before it runs.');
  const confirm = rows(el)[0].querySelector('stalwart-confirm');
  assert.equal(confirm.interrupt.token, 'tok-1b');
  assert.ok($$(confirm, 'button').every((button) => !button.disabled));
  assert.equal(el.shadowRoot.activeElement, rows(el)[0]);
});

test('a refused decision shows the service\'s message on its row and lets the person answer again', async () => {
  const { el } = await inbox({
    'GET /interrupts': { waiting: [pause(1)], next: null },
    'POST /threads/u-1/resume': { status: 403, body: { error: 'not_an_approver', message: 'you may not answer this pause' } },
  });
  await choose(el, 0, 'approve');
  const error = $(el, '[part=row-error]');
  assert.equal(error.getAttribute('role'), 'alert');
  assert.equal(words(error), 'Something went wrong: you may not answer this pause');
  assert.equal(rows(el).length, 1);
  assert.ok($$(rows(el)[0].querySelector('stalwart-confirm'), 'button').every((button) => !button.disabled));
  assert.equal(el.shadowRoot.activeElement, rows(el)[0]);
  assert.deepEqual(await violations(), []);
});

test('a pause someone else already answered (409) says so, and takes no second answer', async () => {
  const { el } = await inbox({
    'GET /interrupts': { waiting: [pause(1)], next: null },
    'POST /threads/u-1/resume': { status: 409, body: { error: 'interrupt_stale', message: 'this pause was already answered' } },
  });
  await choose(el, 0, 'approve');
  assert.equal(words($(el, '[part=row-error]')), 'Something went wrong: this pause was already answered');
  assert.ok($$(rows(el)[0].querySelector('stalwart-confirm'), 'button').every((button) => button.disabled));
});

test('an inbox that cannot be read says why in its status', async () => {
  const { el } = await inbox({ 'GET /interrupts': { status: 401, body: { error: 'unauthorized', message: 'no bearer token' } } });
  const status = $(el, '[part=status]');
  assert.equal(status.getAttribute('role'), 'status');
  assert.equal(words(status), 'Something went wrong: no bearer token');
  assert.ok(status.classList.contains('bad'));
  assert.ok($(el, '[part=empty]').hidden, 'an inbox that was not read is not said to be empty');
});

test('a fetcher that adds Authorization carries it on the inbox\'s reads and its decisions', async () => {
  const backend = fakeFetch({ 'GET /interrupts': { waiting: [pause(1)], next: 'c-2' }, 'POST /threads/u-1/resume': answer() });
  const el = document.createElement('stalwart-inbox');
  el.fetcher = (url, init) => backend(url, { ...init, headers: { ...init.headers, Authorization: 'Bearer jwt-1' } });
  document.body.append(el);
  await settle(el);
  await settle(rows(el)[0].querySelector('stalwart-confirm'));
  await choose(el, 0, 'approve');
  $(el, '[part=more]').click();
  await settle(el);
  assert.deepEqual(backend.calls.map((call) => call.method), ['GET', 'POST', 'GET']);
  assert.ok(backend.calls.every((call) => call.headers.get('Authorization') === 'Bearer jwt-1'));
});

test('a pause without its thread\'s words is headed by the id its owner named, and answered by the id it is stored under', async () => {
  const stored = 'DynmQYxYXWSdASVqSj76VQ:u-7';
  const { el, fetcher } = await inbox({
    'GET /interrupts': { waiting: [pause(7, { thread: stored, turn: undefined })], next: null },
    [`POST /threads/${encodeURIComponent(stored)}/resume`]: answer(),
  });
  assert.equal(words($(el, '[part=thread]')), 'Thread u-7');
  await choose(el, 0, 'approve');
  assert.ok(routes(fetcher).includes(`POST /threads/${encodeURIComponent(stored)}/resume`), routes(fetcher).join(', '));
});

test('setStrings replaces the inbox\'s words, and the theme reaches each confirmation', async () => {
  const { el } = await inbox(
    { 'GET /interrupts': { waiting: [pause(1, { approvals: { needed: 2, given: [ALICE] }, turn: undefined })], next: 'c-2' } },
    { theme: 'dark' },
  );
  setStrings({
    inboxTitle: 'Aguardando decisão', refresh: 'Atualizar', loadMore: 'Carregar mais', threadTitle: 'Conversa {thread}',
    approvalsGiven: 'Aprovado por {names} ({given} de {needed})', filterTool: 'Ferramenta', allKinds: 'Todos os tipos', kind_ask: 'Perguntas',
  });
  await settle(el);
  assert.equal(words($(el, '[part=title]')), 'Aguardando decisão');
  assert.equal(words($(el, '[part=refresh]')), 'Atualizar');
  assert.equal(words($(el, '[part=more]')), 'Carregar mais');
  assert.equal(words($(el, '[part=thread]')), 'Conversa u-1', 'a pause without its thread\'s words is headed by the thread');
  assert.equal(words($(el, '[part=filters] label[for=filter-tool]')), 'Ferramenta');
  assert.deepEqual($$(el, 'select[name=kind] option').slice(0, 3).map(words), ['Todos os tipos', 'Calls to approve', 'Perguntas']);
  assert.equal(words($(el, '[part=approvals]')), 'Aprovado por alice@example.com (1 de 2)');
  assert.equal($(el, 'stalwart-confirm').getAttribute('theme'), 'dark');
});
