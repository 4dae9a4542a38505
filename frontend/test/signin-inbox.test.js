// Signing in from the fragment on the page at /inbox, as an OpenID Connect provider's
// redirect leaves it: a file of its own, since the bundle signs in the marked
// elements once, when it is first imported.
import './dom.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeFetch, settle } from './fakes.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2ln';
const backend = fakeFetch({ 'GET /interrupts': { waiting: [], next: null } });

sessionStorage.clear();
history.replaceState(null, '', `/inbox#access_token=${TOKEN}&token_type=Bearer&expires_in=3600`);
globalThis.fetch = backend;
document.body.innerHTML = '<main><stalwart-inbox base="" data-signin="fragment"></stalwart-inbox></main>';
await import('../dist/agent-ui.js');
await settle(document.querySelector('stalwart-inbox'));

test('an inbox marked data-signin="fragment" is signed in as the chat is: token kept, fragment gone, header sent', () => {
  assert.equal(sessionStorage.getItem('stalwart-access-token'), TOKEN);
  assert.equal(location.href, 'http://localhost:8700/inbox');
  assert.deepEqual(backend.calls.map((call) => `${call.method} ${call.url}`), ['GET /interrupts?limit=50']);
  assert.equal(backend.calls[0].headers.get('Authorization'), `Bearer ${TOKEN}`);
  assert.ok(!backend.calls[0].url.includes(TOKEN), 'the token travels in the header only');
});
