// Signing in from the fragment: the page at / as an OpenID Connect provider's
// redirect leaves it.  A file of its own, since the bundle's entry wires the
// marked chats once, when it is first imported.
import './dom.js';
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { FakeEventSource, fakeFetch, settle } from './fakes.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln';
const backend = fakeFetch(
  { 'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [], not_notified: [] } },
  { ticket: 'tk-1' },
);

// The page as the server sends it, reached by the provider's redirect, before the bundle loads.
sessionStorage.clear();
localStorage.setItem('stalwart-thread', 'u-17');
history.replaceState(null, '', `/?tab=chat#access_token=${TOKEN}&token_type=Bearer&expires_in=3600`);
globalThis.fetch = backend;
globalThis.EventSource = FakeEventSource;
document.body.innerHTML = '<main><stalwart-chat data-signin="fragment"></stalwart-chat></main>';
const { signInFromFragment } = await import('../dist/agent-ui.js');
await settle(document.querySelector('stalwart-chat'));
const afterLoad = { kept: sessionStorage.getItem('stalwart-access-token'), address: location.href };

test('a chat marked data-signin="fragment" is signed in when the bundle loads: token kept, fragment gone, header sent', () => {
  assert.equal(afterLoad.kept, TOKEN);
  assert.equal(afterLoad.address, 'http://localhost:8700/?tab=chat');
  assert.deepEqual(backend.calls.map((c) => `${c.method} ${c.path}`), ['GET /config.json', 'GET /threads/u-17/interrupts']);
  assert.ok(backend.calls.every((call) => call.headers.get('Authorization') === `Bearer ${TOKEN}`));
  assert.ok(!backend.calls.some((call) => call.url.includes(TOKEN)), 'the token travels in the header only');
  assert.deepEqual(FakeEventSource.opened.map((source) => source.url), ['/threads/u-17/stream?ticket=tk-1']);
});

beforeEach(() => {
  sessionStorage.clear();
  history.replaceState(null, '', '/');
});

test('signInFromFragment keeps the token, strips the fragment and sets a fetcher that adds it', async () => {
  history.replaceState(null, '', '/chat#access_token=abc.def.ghi&state=xyz');
  const calls = [];
  const chat = { fetcher: async (url, init) => (calls.push(init), new Response('{}')) };
  assert.equal(signInFromFragment(chat), 'abc.def.ghi');
  assert.equal(sessionStorage.getItem('stalwart-access-token'), 'abc.def.ghi');
  assert.equal(location.href, 'http://localhost:8700/chat');
  await chat.fetcher('/threads/t/messages', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.equal(calls[0].headers.get('Authorization'), 'Bearer abc.def.ghi');
  assert.equal(calls[0].headers.get('Content-Type'), 'application/json');
  assert.equal(calls[0].method, 'POST');
});

test('after a reload, with no fragment, the token kept in this tab is used', async () => {
  sessionStorage.setItem('stalwart-access-token', 'kept');
  const calls = [];
  const chat = { fetcher: async (url, init) => (calls.push(init), new Response('{}')) };
  assert.equal(signInFromFragment(chat), 'kept');
  await chat.fetcher('/threads/t/interrupts', {});
  assert.equal(calls[0].headers.get('Authorization'), 'Bearer kept');
});

test('a new token in the fragment replaces the one kept', () => {
  sessionStorage.setItem('stalwart-access-token', 'old');
  history.replaceState(null, '', '/#access_token=new');
  assert.equal(signInFromFragment({ fetcher: fetch }), 'new');
  assert.equal(sessionStorage.getItem('stalwart-access-token'), 'new');
});

test('without a token (a server with no auth), the chat is left as it was, and so is a fragment that carries none', () => {
  history.replaceState(null, '', '/#section-2');
  const fetcher = async () => new Response('{}');
  const chat = { fetcher };
  assert.equal(signInFromFragment(chat), '');
  assert.equal(chat.fetcher, fetcher);
  assert.equal(location.hash, '#section-2');
  assert.equal(sessionStorage.getItem('stalwart-access-token'), null);
});
