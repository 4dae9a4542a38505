import './dom.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, Client, SESSION_KEY } from '../src/client.js';
import { fakeFetch } from './fakes.js';

test('requests go under base, and JSON is read whatever the content type says', async () => {
  const fetcher = fakeFetch({ 'GET /agent/threads/u%2017/interrupts': { thread: 'u 17', waiting: [], not_notified: [] } });
  const client = new Client('/agent/', fetcher);
  const body = await client.interrupts('u 17');
  assert.deepEqual(body, { thread: 'u 17', waiting: [], not_notified: [] });
  assert.equal(fetcher.calls[0].url, '/agent/threads/u%2017/interrupts');
});

test('the session the server hands out is sent back on every request', async () => {
  sessionStorage.clear();
  const fetcher = fakeFetch({ 'POST /threads/t/messages': { reply: { id: 'm1', text: 'hi' } }, 'POST /threads/t/feedback': { message: 'm1', thumb: 'up' } }, { session: 's-1' });
  const client = new Client('', fetcher);
  await client.send('t', 'hello');
  assert.equal(fetcher.calls[0].headers.get('Stalwart-Session'), null);
  assert.deepEqual(fetcher.calls[0].body, { text: 'hello' });
  assert.equal(sessionStorage.getItem(SESSION_KEY), 's-1');
  await client.feedback('t', 'm1', 'up');
  assert.equal(fetcher.calls[1].headers.get('Stalwart-Session'), 's-1');
  assert.deepEqual(fetcher.calls[1].body, { message: 'm1', thumb: 'up' });
});

test('an answer other than 2xx is an ApiError carrying the backend\'s code and body', async () => {
  const waiting = [{ id: 'p1', kind: 'confirm' }];
  const fetcher = fakeFetch({ 'POST /threads/t/messages': { status: 409, body: { error: 'run_waiting', message: 'a run waits', waiting } } });
  await assert.rejects(new Client('', fetcher).send('t', 'again'), (err) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 409);
    assert.equal(err.code, 'run_waiting');
    assert.equal(err.message, 'a run waits');
    assert.deepEqual(err.body.waiting, waiting);
    return true;
  });
});

test('the injected fetch is called unbound, as window.fetch must be', async () => {
  let self = 'unset';
  const fetcher = function (url, init) {
    self = this;
    return Promise.resolve(new Response('{}'));
  };
  await new Client('', fetcher).interrupts('t');
  assert.equal(self, globalThis);
});

test('every POST carries Content-Type: application/json, and a GET no body and no content type', async () => {
  const fetcher = fakeFetch({
    'POST /threads/t/messages': { reply: { id: 'm1', text: 'hi' } },
    'POST /threads/t/resume': { reply: null },
    'POST /threads/t/feedback': { message: 'm1', thumb: 'up' },
    'GET /threads/t/interrupts': { waiting: [] },
  });
  const client = new Client('', fetcher);
  await client.send('t', 'hello');
  await client.resume('t', { interrupt_id: 'p1', decision: 'approve', token: 'tok' });
  await client.feedback('t', 'm1', 'up');
  await client.interrupts('t');
  const posts = fetcher.calls.filter((c) => c.method === 'POST');
  assert.deepEqual(posts.map((c) => c.path), ['/threads/t/messages', '/threads/t/resume', '/threads/t/feedback']);
  assert.ok(posts.every((c) => c.headers.get('Content-Type') === 'application/json'));
  const get = fetcher.calls.find((c) => c.method === 'GET');
  assert.equal(get.headers.get('Content-Type'), null);
  assert.equal(get.body, undefined);
});

test('the stream ticket the server hands out is kept per thread, the latest one', async () => {
  let minted = 0;
  const fetcher = fakeFetch(
    { 'GET /threads/a/interrupts': { waiting: [] }, 'POST /threads/a/messages': { reply: null }, 'GET /threads/b/interrupts': { waiting: [] } },
    { ticket: (call) => `tk-${call.path.split('/')[2]}-${++minted}` },
  );
  const client = new Client('', fetcher);
  assert.equal(client.ticket('a'), '');
  await client.interrupts('a');
  assert.equal(client.ticket('a'), 'tk-a-1');
  await client.send('a', 'hello');
  await client.interrupts('b');
  assert.equal(client.ticket('a'), 'tk-a-2');
  assert.equal(client.ticket('b'), 'tk-b-3');
});

test('a 401 is an ApiError with the server\'s message, and hands out no ticket', async () => {
  const fetcher = fakeFetch(
    { 'GET /threads/t/interrupts': { status: 401, body: { error: 'unauthorized', message: 'the token has expired' } } },
    { ticket: 'tk' },
  );
  const client = new Client('', fetcher);
  await assert.rejects(client.interrupts('t'), { status: 401, code: 'unauthorized', message: 'the token has expired' });
  assert.equal(client.ticket('t'), '');
});

test('the inbox reads GET /interrupts under base with the filters given, leaves out those not given, and keeps no ticket', async () => {
  const fetcher = fakeFetch({ 'GET /agent/interrupts': { waiting: [], next: null } }, { ticket: 'tk' });
  const client = new Client('/agent/', fetcher);
  assert.deepEqual(await client.inbox({ kind: 'confirm', tool: 'charge card', limit: 20, cursor: 'c/2' }), { waiting: [], next: null });
  await client.inbox({ kind: '', tool: undefined, limit: 50, cursor: '' });
  await client.inbox();
  assert.deepEqual(fetcher.calls.map((call) => call.url), [
    '/agent/interrupts?kind=confirm&tool=charge+card&limit=20&cursor=c%2F2',
    '/agent/interrupts?limit=50',
    '/agent/interrupts',
  ]);
  assert.equal(fetcher.calls[0].headers.get('Content-Type'), null);
  assert.equal(client.ticket(''), '');
  assert.equal(client.tickets.size, 0);
});
