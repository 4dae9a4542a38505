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
  assert.equal(fetcher.calls[0].headers['Stalwart-Session'], undefined);
  assert.deepEqual(fetcher.calls[0].body, { text: 'hello' });
  assert.equal(sessionStorage.getItem(SESSION_KEY), 's-1');
  await client.feedback('t', 'm1', 'up');
  assert.equal(fetcher.calls[1].headers['Stalwart-Session'], 's-1');
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
