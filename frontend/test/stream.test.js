import './dom.js';
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { LAST_DELAY, Stream, cursorKey } from '../src/stream.js';
import { FakeEventSource } from './fakes.js';

function stream(thread, log = []) {
  FakeEventSource.opened = [];
  const s = new Stream({
    url: `/threads/${thread}/stream`,
    thread,
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

test('when the browser gives up, it reconnects with backoff from 1 s doubling to 30 s, from the last id', () => {
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
