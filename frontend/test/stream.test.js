import './dom.js';
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { LAST_DELAY, Stream, cursorKey } from '../src/stream.js';
import { FakeEventSource } from './fakes.js';

/** Let a renewal's promise settle (setImmediate is not among the mocked timers). */
const flush = () => new Promise((resolve) => setImmediate(resolve));

function stream(thread, log = [], { ticket = () => '', renew = async () => {} } = {}) {
  FakeEventSource.opened = [];
  const s = new Stream({
    url: `/threads/${thread}/stream`,
    thread,
    ticket,
    renew,
    open: (url) => new FakeEventSource(url),
    onEvent: (type, body, id) => log.push([type, body, id]),
    onOpen: () => log.push(['open']),
    onReconnecting: (on) => log.push(['reconnecting', on]),
  });
  s.start();
  return s;
}

test('events are passed on with their ids, and the last id is kept per thread', () => {
  sessionStorage.clear();
  const log = [];
  const s = stream('a', log);
  const source = FakeEventSource.opened[0];
  assert.equal(source.url, '/threads/a/stream');
  source.open();
  source.emit('step', { type: 'step', key: '1', tool: 'read_order', status: 'done' }, 4);
  source.emit('pause', { type: 'pause' }, 5);
  source.emit('step', { type: 'step' }, 5); // a replay of what was seen
  assert.deepEqual(log.map((l) => l[0]), ['reconnecting', 'open', 'step', 'pause']);
  assert.equal(sessionStorage.getItem(cursorKey('a')), '5');
  s.stop();
  assert.ok(source.closed);
});

test('after a reload, the stream resumes with ?last_event_id=', () => {
  sessionStorage.setItem(cursorKey('b'), '17');
  const s = stream('b');
  assert.equal(FakeEventSource.opened[0].url, '/threads/b/stream?last_event_id=17');
  s.stop();
});

test('when the browser gives up, it reconnects with backoff from 1 s doubling to 30 s, from the last id', async () => {
  sessionStorage.clear();
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const log = [];
    const s = stream('c', log);
    FakeEventSource.opened[0].open();
    FakeEventSource.opened[0].emit('run', { type: 'run' }, 9);
    const delays = [];
    for (let attempt = 0; attempt < 7; attempt += 1) {
      const source = FakeEventSource.opened.at(-1);
      source.fail(FakeEventSource.CLOSED);
      assert.ok(source.closed);
      let waited = 0;
      while (FakeEventSource.opened.at(-1) === source) {
        mock.timers.tick(500);
        await flush();
        waited += 500;
      }
      delays.push(waited);
      assert.equal(FakeEventSource.opened.at(-1).url, '/threads/c/stream?last_event_id=9');
    }
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, LAST_DELAY, LAST_DELAY]);
    assert.deepEqual(log.filter((l) => l[0] === 'reconnecting').at(-1), ['reconnecting', true]);
    FakeEventSource.opened.at(-1).open();
    assert.deepEqual(log.at(-2), ['reconnecting', false]);
    assert.deepEqual(log.at(-1), ['open']);
    s.stop();
  } finally {
    mock.timers.reset();
  }
});

test('a stream that merely ended is not "reconnecting"; a browser retry that fails again is', () => {
  const log = [];
  const s = stream('d', log);
  const source = FakeEventSource.opened[0];
  source.open();
  source.fail(FakeEventSource.CONNECTING);
  assert.ok(!log.some((l) => l[0] === 'reconnecting' && l[1] === true));
  source.fail(FakeEventSource.CONNECTING);
  assert.deepEqual(log.at(-1), ['reconnecting', true]);
  assert.equal(FakeEventSource.opened.length, 1, 'the browser retries by itself');
  s.stop();
});

test('the stream opens with the thread\'s current ticket, before the last id', () => {
  sessionStorage.setItem(cursorKey('e'), '3');
  const s = stream('e', [], { ticket: () => 'tk.1' });
  assert.equal(FakeEventSource.opened[0].url, '/threads/e/stream?ticket=tk.1&last_event_id=3');
  s.stop();
});

test('after the browser gives up (a ticket that expired, say), a fresh ticket is got before opening again', async () => {
  sessionStorage.clear();
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let ticket = 'tk-1';
    const renewals = [];
    let refuse = true;
    const s = stream('f', [], {
      ticket: () => ticket,
      renew: async () => {
        renewals.push(FakeEventSource.opened.length);
        if (refuse) throw new Error('offline');
        ticket = `tk-${renewals.length + 1}`;
      },
    });
    FakeEventSource.opened[0].fail(FakeEventSource.CLOSED);
    assert.deepEqual(renewals, [], 'not before the backoff');
    mock.timers.tick(1000);
    await flush();
    assert.deepEqual(renewals, [1]);
    assert.equal(FakeEventSource.opened.length, 1, 'no ticket, no new EventSource');
    refuse = false;
    mock.timers.tick(2000);
    await flush();
    assert.deepEqual(renewals, [1, 1]);
    assert.equal(FakeEventSource.opened.length, 2);
    assert.equal(FakeEventSource.opened[1].url, '/threads/f/stream?ticket=tk-3');
    s.stop();
  } finally {
    mock.timers.reset();
  }
});

test('a stream stopped while its ticket is renewed stays closed', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let release;
    const s = stream('g', [], { renew: () => new Promise((resolve) => (release = resolve)) });
    FakeEventSource.opened[0].fail(FakeEventSource.CLOSED);
    mock.timers.tick(1000);
    s.stop();
    release();
    await flush();
    assert.equal(FakeEventSource.opened.length, 1);
  } finally {
    mock.timers.reset();
  }
});
