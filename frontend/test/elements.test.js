// The built elements in a DOM (happy-dom): what they render and what they send.
import { window } from './dom.js';
import { $, $$, words, mount } from './page.js';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { FakeEventSource, fakeFetch, settle } from './fakes.js';

const { setStrings, shipped } = await import('../dist/agent-ui.js');

const CHARGE = {
  id: 'p_1.aaa', kind: 'confirm', thread: 'u-17', run: 'r_1', step: 2, tool: 'charge_card', question: 'Run charge_card?',
  arguments: [{ name: 'amount', value: 40, origin: 'typed' }, { name: 'order_id', value: '4411', origin: 'result:1' }],
  reasons: ['write', 'argument_origin: amount'], irreversible: true, answers: ['approve', 'skip', 'cancel_all'], token: 'tok-1', created_at: '2025-01-01T00:00:00.000Z',
};
const reply = (text, extra = {}) => ({ thread: 'u-17', reply: { id: `m-${text.length}`, text }, steps: [], waiting: [], refusals: [], rollback: null, not_notified: [], ...extra });

/** A request the chat made of its thread (not what it reads of the agent, /config.json). */
const threadCalls = (fetcher) => fetcher.calls.filter((c) => c.path !== '/config.json').map((c) => `${c.method} ${c.path}`);

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  FakeEventSource.opened = [];
});
afterEach(() => {
  document.body.innerHTML = '';
  setStrings(shipped);
});

// <stalwart-confirm>, by kind

test('a confirm pause without words of its own: title, question, arguments with their origins in words, reasons, warning, three buttons', async () => {
  const el = await mount('stalwart-confirm', { interrupt: CHARGE });
  assert.equal(words($(el, '[part=confirm] h2')), 'Confirm charge_card?');
  assert.equal(words($(el, '.question')), 'Run charge_card?');
  assert.equal(words($(el, '[part=arguments] h3')), 'What it will use');
  assert.deepEqual($$(el, '[part=arguments] dt').map(words), ['amount', 'order_id']);
  assert.deepEqual($$(el, '[part=arguments] dd.value').map(words), ['40', '4411']);
  assert.deepEqual($$(el, '[part=arguments] dd.origin').map(words), ['you typed it', 'from an earlier step']);
  assert.equal(words($(el, '[part=reasons] h3')), 'Why this needs you');
  assert.deepEqual($$(el, '[part=reasons] li').map(words), ['It changes something outside this conversation.', 'You did not give amount yourself: check it.']);
  assert.equal(words($(el, '[part=irreversible]')), 'Nothing can undo this step once it runs.');
  assert.deepEqual($$(el, '[part=choices] button').map(words), ['Approve — cannot be undone', 'Skip this step', 'Cancel everything']);
  assert.equal($(el, '[part=turn]'), null);
});

test('choosing dispatches stalwart-decision (bubbling, composed) once, and the buttons disable', async () => {
  const el = await mount('stalwart-confirm', { interrupt: { ...CHARGE, irreversible: false } });
  assert.equal($(el, '[part=irreversible]'), null);
  const heard = [];
  document.body.addEventListener('stalwart-decision', (event) => heard.push(event));
  $(el, 'button[data-answer=skip]').click();
  $(el, 'button[data-answer=approve]').click();
  await settle(el);
  assert.equal(heard.length, 1);
  assert.ok(heard[0].bubbles && heard[0].composed);
  assert.deepEqual(heard[0].detail, { interrupt: el.interrupt, decision: 'skip' });
  assert.ok($$(el, '[part=choices] button').every((button) => button.disabled));
  el.interrupt = { ...el.interrupt };
  await settle(el);
  assert.ok($$(el, '[part=choices] button').every((button) => !button.disabled), 'a new pause takes an answer again');
});

test('an ask pause: the prompt, one labelled text input described by it, and one Send button that sends the value', async () => {
  const ask = { ...CHARGE, kind: 'ask', answers: ['answer'], prompt: 'What amount should charge_card use?', arguments: [], reasons: [], irreversible: false };
  const el = await mount('stalwart-confirm', { interrupt: ask });
  assert.equal(words($(el, 'h2')), 'What amount should charge_card use?');
  assert.equal($$(el, 'input').length, 1);
  const input = $(el, '[part=choices] input');
  assert.equal(words($(el, `[part=choices] label[for=${input.id}]`)), 'Your answer');
  assert.equal(input.getAttribute('aria-describedby'), 'title');
  assert.deepEqual($$(el, 'button').map(words), ['Send']);
  const heard = [];
  el.addEventListener('stalwart-decision', (event) => heard.push(event.detail));
  $(el, '[part=choices] button').click();
  await settle(el);
  assert.equal(heard.length, 0, 'an empty answer is not sent');
  input.value = '40';
  $(el, '[part=choices] button').click();
  await settle(el);
  assert.deepEqual(heard, [{ interrupt: ask, decision: 'answer', value: '40' }]);
});

test('an outcome_unknown pause asks whether the tool took effect', async () => {
  const el = await mount('stalwart-confirm', { interrupt: { ...CHARGE, kind: 'outcome_unknown', answers: ['happened', 'did_not_happen'], reasons: [] } });
  assert.equal(words($(el, 'h2')), 'Did charge_card take effect?');
  assert.deepEqual($$(el, '[part=choices] button').map(words), ['Yes, it happened', 'No, it did not']);
});

test('a saga_stuck pause says which undo failed, what is still pending, and takes retry / done by hand / abandon', async () => {
  const stuck = {
    ...CHARGE, kind: 'saga_stuck', answers: ['retry', 'done_by_hand', 'abandon'], reasons: ['undo_failed: timeout'], irreversible: false,
    undo: { tool: 'refund_card', error: 'timeout', attempts: 3 }, pending: [{ step: 1, tool: 'reserve_stock', undo: 'release_stock' }],
  };
  const el = await mount('stalwart-confirm', { interrupt: stuck });
  assert.equal(words($(el, 'h2')), 'Undoing charge_card failed. What should happen?');
  assert.deepEqual($$(el, '.pending li').map(words), ['Step 1 reserve_stock']);
  assert.deepEqual($$(el, '[part=choices] button').map(words), ['Try again', 'I undid it myself', 'Leave it']);
});

test('a delegate pause shows the turn and asks to pass it on', async () => {
  const delegate = { ...CHARGE, kind: 'delegate', tool: '', answers: ['approve', 'decline'], arguments: [], reasons: ['unread'], irreversible: false, turn: 'book me a flight' };
  const el = await mount('stalwart-confirm', { interrupt: delegate });
  assert.equal(words($(el, 'h2')), "I couldn't work that out. Shall I pass it to the assistant?");
  assert.equal(words($(el, '[part=turn]')), 'book me a flight');
  assert.deepEqual($$(el, '[part=choices] button').map(words), ['Yes, pass it on', 'No']);
});

test('an answer without a string is shown as written', async () => {
  const el = await mount('stalwart-confirm', { interrupt: { ...CHARGE, irreversible: false, answers: ['approve', 'escalate'] } });
  assert.deepEqual($$(el, '[part=choices] button').map(words), ['Approve', 'escalate']);
});

// <stalwart-decision>, <stalwart-rollback>, <stalwart-trace>

test('a refusal: "Not done" and the sentence; the rule behind a disclosure button', async () => {
  const el = await mount('stalwart-decision', {}, { sentence: 'Refunds over 100 need a manager.', rule: 'refund.amount <= 100' });
  assert.equal(words($(el, '[part=decision] p')), 'Not done Refunds over 100 need a manager.');
  const button = $(el, '[part=decision] button');
  assert.equal(words(button), 'Which rule?');
  assert.equal(button.getAttribute('aria-expanded'), 'false');
  assert.equal(button.getAttribute('aria-controls'), 'rule');
  assert.ok($(el, '[part=rule]').hidden);
  button.click();
  await settle(el);
  assert.equal(button.getAttribute('aria-expanded'), 'true');
  assert.ok(!$(el, '[part=rule]').hidden);
  assert.equal(words($(el, '[part=rule]')), 'Rule refund.amount <= 100');
});

test('a refusal without a disclosed rule has no disclosure', async () => {
  const el = await mount('stalwart-decision', {}, { sentence: 'Not allowed.' });
  assert.equal($(el, 'button'), null);
  assert.equal($(el, '[part=rule]'), null);
});

test('a rollback report: what was undone (and by whom) and what could not be (and why)', async () => {
  const report = {
    reason: 'cancel_all', status: 'complete',
    undone: [{ step: 2, tool: 'charge_card', undo: 'refund_card', arguments: [], by: 'tool' }, { step: 1, tool: 'reserve_stock', undo: 'release', arguments: [], by: 'person' }],
    not_undone: [{ step: 3, tool: 'send_email', undo: null, arguments: [], why: 'irreversible' }],
  };
  const el = await mount('stalwart-rollback', { report });
  assert.equal(words($(el, '[part=rollback] h2')), 'Undoing what this run did');
  assert.deepEqual($$(el, '.undone li').map(words), ['Undone charge_card', 'Undone reserve_stock (person)']);
  assert.deepEqual($$(el, '.not-undone li').map(words), ['Could not be undone send_email (irreversible)']);
});

test('a trace: each step as "Step n" with its tool and status', async () => {
  const events = [
    { type: 'turn', text: 'hi' },
    { type: 'step', key: '1', tool: 'read_order', status: 'done' },
    { step: 2, call: 1, tool: 'charge_card', status: 'skipped' },
  ];
  const el = await mount('stalwart-trace', { events });
  assert.equal(words($(el, '[part=trace] h2')), 'What happened');
  assert.deepEqual($$(el, 'li').map(words), ['Step 1 read_order done', 'Step 2.1 charge_card skipped']);
});

// <stalwart-chat>

function chat(routes, attributes = { thread: 'u-17' }, options = {}) {
  const fetcher = fakeFetch({ 'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [], not_notified: [] }, ...routes }, options);
  return mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, attributes).then((el) => ({ el, fetcher }));
}

async function type(el, text) {
  const area = $(el, 'textarea');
  area.value = text;
  area.dispatchEvent(new window.Event('input'));
  await settle(el);
  area.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  await settle(el);
}

test('the chat renders its regions: log, status, steps, composer, citations (hidden), slots', async () => {
  const { el, fetcher } = await chat({});
  const log = $(el, '[part=log]');
  assert.equal(log.getAttribute('role'), 'log');
  assert.equal(log.getAttribute('aria-live'), 'polite');
  assert.equal(log.getAttribute('aria-label'), 'Conversation');
  assert.equal($(el, '[part=status]').getAttribute('role'), 'status');
  assert.equal(words($(el, '[part=steps] summary')), 'What happened');
  assert.ok($(el, '[part=steps] stalwart-trace'));
  assert.equal($(el, '[part=composer] textarea').getAttribute('aria-label'), 'Write a message');
  assert.equal(words($(el, '[part=composer] button')), 'Send');
  assert.ok($(el, '[part=citations]').hidden);
  assert.equal($(el, '[part=citations]').getAttribute('aria-label'), 'Sources');
  assert.ok($(el, '[part=citations] [part=sources]'));
  assert.ok($(el, '[part=thumbs-notice]').hidden);
  assert.deepEqual($$(el, 'slot').map((slot) => slot.name), ['header', 'footer']);
  assert.deepEqual(threadCalls(fetcher), ['GET /threads/u-17/interrupts']);
  assert.equal(FakeEventSource.opened[0].url, '/threads/u-17/stream');
  assert.equal($$(el, '[style]').length, 0);
});

test('without a thread attribute, the chat makes up an id, reads nothing of it, and keeps it from its first turn', async () => {
  localStorage.removeItem('stalwart-thread');
  const turns = new Proxy({}, { get: (_, route) => (String(route).startsWith('POST /agent/threads/') ? reply('hello') : undefined) });
  const fetcher = fakeFetch(turns);
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { base: '/agent' });
  const onThreads = () => fetcher.calls.filter((c) => c.path.includes('/threads/')).map((c) => `${c.method} ${c.path}`);
  assert.deepEqual(onThreads(), [], 'a thread nobody has started answers 404: it is not read');
  assert.equal(localStorage.getItem('stalwart-thread'), null);
  await type(el, 'hi');
  const [sent] = onThreads();
  const thread = localStorage.getItem('stalwart-thread');
  assert.match(thread, /^[0-9a-f-]{36}$/);
  assert.equal(sent, `POST /agent/threads/${thread}/messages`);
});

test('a new conversation: what waits answers 404, which is no error, and the stream opens only after the first turn', async () => {
  const { el, fetcher } = await chat(
    {
      'GET /threads/u-17/interrupts': { status: 404, body: { error: 'not_found', message: 'no such thread' } },
      'POST /threads/u-17/messages': reply('hello'),
    },
    undefined,
    { ticket: 'tk-1' },
  );
  assert.equal(words($(el, '[part=status]')), '');
  assert.ok(!$(el, '[part=status]').classList.contains('bad'));
  assert.equal(FakeEventSource.opened.length, 0);
  await type(el, 'hi');
  assert.deepEqual(threadCalls(fetcher), ['GET /threads/u-17/interrupts', 'POST /threads/u-17/messages']);
  assert.deepEqual(FakeEventSource.opened.map((source) => source.url), ['/threads/u-17/stream?ticket=tk-1']);
  assert.equal(words($(el, '[part=status]')), '');
});

test('a 401 shows the error string with the server\'s message', async () => {
  const { el } = await chat({
    'GET /threads/u-17/interrupts': { status: 401, body: { error: 'unauthorized', message: 'no bearer token' } },
  });
  assert.equal(words($(el, '[part=status]')), 'Something went wrong: no bearer token');
  assert.equal(FakeEventSource.opened.length, 0);
});

test('a fetcher that adds Authorization carries it on every request: what waits, a turn, a decision, a thumb', async () => {
  const backend = fakeFetch({
    'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [], not_notified: [] },
    'POST /threads/u-17/messages': reply('I can charge 40.', { waiting: [CHARGE] }),
    'POST /threads/u-17/resume': reply('Charged 40.'),
    'POST /threads/u-17/feedback': { message: 'm-11', thumb: 'up' },
  });
  const fetcher = (url, init) => backend(url, { ...init, headers: { ...init.headers, Authorization: 'Bearer jwt-1' } });
  const el = await mount('stalwart-chat', { fetcher, eventSource: (url) => new FakeEventSource(url) }, { thread: 'u-17', thumbs: '' });
  await type(el, 'charge 40');
  $($(el, 'stalwart-confirm'), 'button[data-answer=approve]').click();
  await settle(el);
  $$(el, '[part=thumbs] [data-thumb=up]').at(-1).click();
  await settle(el);
  const routes = new Set(backend.calls.map((c) => c.path.split('/').at(-1)));
  assert.deepEqual([...routes].sort(), ['config.json', 'feedback', 'interrupts', 'messages', 'resume']);
  assert.ok(backend.calls.every((c) => c.headers.get('Authorization') === 'Bearer jwt-1'));
  assert.ok(backend.calls.filter((c) => c.method === 'POST').every((c) => c.headers.get('Content-Type') === 'application/json'));
});

test('the stream opens with the ticket handed out; when it fails, a fresh ticket is read before it opens again', async () => {
  let minted = 0;
  const { el, fetcher } = await chat({}, undefined, { ticket: (call) => (call.path.startsWith('/threads/') ? `tk-${++minted}` : '') });
  assert.deepEqual(FakeEventSource.opened.map((source) => source.url), ['/threads/u-17/stream?ticket=tk-1']);
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    FakeEventSource.opened[0].fail(FakeEventSource.CLOSED);
    await settle(el);
    assert.equal(words($(el, '[part=status]')), 'Reconnecting…');
    mock.timers.tick(1000);
    await settle(el);
  } finally {
    mock.timers.reset();
  }
  assert.deepEqual(threadCalls(fetcher), ['GET /threads/u-17/interrupts', 'GET /threads/u-17/interrupts']);
  assert.deepEqual(FakeEventSource.opened.map((source) => source.url), ['/threads/u-17/stream?ticket=tk-1', '/threads/u-17/stream?ticket=tk-2']);
  FakeEventSource.opened[1].open();
  await settle(el);
  assert.equal(words($(el, '[part=status]')), '');
});

test('a turn: Enter sends it, the log shows it and the reply, and a pause waits as a confirmation', async () => {
  const { el, fetcher } = await chat({ 'POST /threads/u-17/messages': reply('I can charge 40 to order 4411.', { waiting: [CHARGE] }) });
  await type(el, 'charge 40 to order 4411');
  const sent = fetcher.calls.find((c) => c.method === 'POST');
  assert.deepEqual(sent.body, { text: 'charge 40 to order 4411' });
  assert.deepEqual($$(el, '[part=log] .turn').map(words), ['charge 40 to order 4411']);
  assert.deepEqual($$(el, '[part=log] .reply .text').map(words), ['I can charge 40 to order 4411.']);
  const confirm = $(el, '[part=log] stalwart-confirm');
  assert.equal(confirm.interrupt.id, CHARGE.id);
  assert.equal(words($(el, '[part=status]')), 'Waiting for your decision');
  assert.equal($(el, 'textarea').value, '');
  assert.notEqual(el.shadowRoot.activeElement, confirm, 'a new confirmation does not take the focus');
});

test('Shift+Enter does not send, and an empty message is never sent', async () => {
  const { el, fetcher } = await chat({});
  const area = $(el, 'textarea');
  area.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, bubbles: true, cancelable: true }));
  await type(el, '   ');
  assert.equal(fetcher.calls.filter((c) => c.method === 'POST').length, 0);
});

test('while a turn is on its way, Send is disabled, the status says so, and a second Enter sends nothing', async () => {
  let release;
  const { el, fetcher } = await chat({ 'POST /threads/u-17/messages': () => new Promise((resolve) => (release = () => resolve(reply('done')))) });
  await type(el, 'one');
  assert.ok($(el, '[part=composer] button').disabled);
  assert.ok($(el, 'textarea').readOnly);
  assert.equal(words($(el, '[part=status]')), 'Sending…');
  $(el, 'textarea').dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  await settle(el);
  assert.equal(fetcher.calls.filter((c) => c.method === 'POST').length, 1);
  release();
  await settle(el);
  assert.ok(!$(el, '[part=composer] button').disabled);
  assert.equal(words($(el, '[part=status]')), '');
});

test('a decision is sent as a resume, recorded in the conversation, and focus moves to its record', async () => {
  const { el, fetcher } = await chat({
    'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [CHARGE], not_notified: [] },
    'POST /threads/u-17/resume': reply('Charged 40 to order 4411.'),
  });
  const confirm = $(el, 'stalwart-confirm');
  $(confirm, 'button[data-answer=approve]').click();
  await settle(el);
  const resume = fetcher.calls.find((c) => c.path.endsWith('/resume'));
  assert.deepEqual(resume.body, { interrupt_id: CHARGE.id, decision: 'approve', token: 'tok-1' });
  assert.equal($(el, 'stalwart-confirm'), null);
  const record = $(el, '[part=log] .record');
  assert.equal(words(record.querySelector('.what')), 'You approved: charge_card');
  assert.equal(words($(el, '[part=log] .reply .text')), 'Charged 40 to order 4411.');
  assert.equal(el.shadowRoot.activeElement, record);
});

test('an ask is answered through resume with its value', async () => {
  const ask = { ...CHARGE, kind: 'ask', answers: ['answer'], prompt: 'What amount?', token: 'tok-2' };
  const { el, fetcher } = await chat({
    'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [ask], not_notified: [] },
    'POST /threads/u-17/resume': reply('ok'),
  });
  const confirm = $(el, 'stalwart-confirm');
  $(confirm, 'input').value = '40';
  $(confirm, 'form').dispatchEvent(new window.Event('submit', { cancelable: true }));
  await settle(el);
  assert.deepEqual(fetcher.calls.find((c) => c.path.endsWith('/resume')).body, { interrupt_id: ask.id, decision: 'answer', token: 'tok-2', value: '40' });
});

test('a stale decision re-reads what waits', async () => {
  let reads = 0;
  const fresh = { ...CHARGE, id: 'p_1.bbb', token: 'tok-3' };
  const { el } = await chat({
    'GET /threads/u-17/interrupts': () => ({ thread: 'u-17', waiting: reads++ ? [fresh] : [CHARGE], not_notified: [] }),
    'POST /threads/u-17/resume': { status: 409, body: { error: 'interrupt_stale', message: 'already answered' } },
  });
  $($(el, 'stalwart-confirm'), 'button[data-answer=approve]').click();
  await settle(el);
  assert.equal(reads, 2);
  assert.deepEqual($$(el, 'stalwart-confirm').map((c) => c.interrupt.id), ['p_1.bbb']);
  assert.equal(words($(el, '[part=status]')), 'Waiting for your decision');
});

test('a new turn while something waits (409 run_waiting) shows the waiting string and what waits, and keeps the text', async () => {
  const { el } = await chat({ 'POST /threads/u-17/messages': { status: 409, body: { error: 'run_waiting', message: 'a run waits', waiting: [CHARGE] } } });
  await type(el, 'something else');
  assert.equal(words($(el, '[part=status]')), 'Waiting for your decision');
  assert.equal($$(el, 'stalwart-confirm').length, 1);
  assert.equal($(el, 'textarea').value, 'something else');
  assert.equal($$(el, '[part=log] .turn').length, 0);
});

test('a failed decision says what went wrong and lets the person answer again', async () => {
  const { el } = await chat({
    'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [CHARGE], not_notified: [] },
    'POST /threads/u-17/resume': { status: 503, body: { error: 'storage_unavailable', message: 'the run store is down' } },
  });
  $($(el, 'stalwart-confirm'), 'button[data-answer=approve]').click();
  await settle(el);
  assert.equal(words($(el, '[part=status]')), 'Something went wrong: the run store is down');
  assert.ok($$($(el, 'stalwart-confirm'), 'button').every((b) => !b.disabled));
});

test('refusals and a rollback in an answer are shown as their elements', async () => {
  const rollback = { reason: 'cancel_all', status: 'complete', undone: [{ step: 1, tool: 'charge_card', undo: 'refund_card', arguments: [], by: 'tool' }], not_undone: [] };
  const { el } = await chat({
    'POST /threads/u-17/messages': reply('Cancelled.', { refusals: [{ step: 1, tool: 'refund', arguments: [], sentence: 'Not over 100.', rule: 'amount <= 100' }], rollback }),
  });
  await type(el, 'refund 500');
  const decision = $(el, '[part=log] stalwart-decision');
  assert.equal(decision.getAttribute('sentence'), 'Not over 100.');
  assert.equal(decision.getAttribute('rule'), 'amount <= 100');
  assert.deepEqual($(el, '[part=log] stalwart-rollback').report, rollback);
});

test('with thumbs, each reply has Helpful / Not helpful buttons that send feedback, and the notice shows', async () => {
  const { el, fetcher } = await chat({ 'POST /threads/u-17/messages': reply('hello'), 'POST /threads/u-17/feedback': { message: 'm-5', thumb: 'down' } }, { thread: 'u-17', thumbs: '' });
  assert.ok(!$(el, '[part=thumbs-notice]').hidden);
  assert.equal(words($(el, '[part=thumbs-notice]')), 'A rated message is kept to improve the assistant, and nothing else of the conversation.');
  await type(el, 'hi');
  const buttons = $$(el, '[part=thumbs] button');
  assert.deepEqual(buttons.map(words), ['Helpful', 'Not helpful']);
  buttons[1].click();
  await settle(el);
  assert.deepEqual(fetcher.calls.find((c) => c.path.endsWith('/feedback')).body, { message: 'm-5', thumb: 'down' });
  assert.equal($$(el, '[part=thumbs] button')[1].getAttribute('aria-pressed'), 'true');
});

test('without thumbs there are no rating buttons', async () => {
  const { el } = await chat({ 'POST /threads/u-17/messages': reply('hello') });
  await type(el, 'hi');
  assert.equal($$(el, '[part=thumbs]').length, 0);
});

test('the stream feeds the trace, and what waits is re-read on each (re)connection and pause', async () => {
  let reads = 0;
  const { el } = await chat({ 'GET /threads/u-17/interrupts': () => (reads++, { thread: 'u-17', waiting: reads > 2 ? [CHARGE] : [], not_notified: [] }) });
  assert.equal(reads, 1);
  const source = FakeEventSource.opened[0];
  source.open();
  await settle(el);
  assert.equal(reads, 2);
  source.emit('step', { type: 'step', run: 'r_1', key: '1', tool: 'read_order', status: 'done', arguments: [] }, 1);
  source.emit('pause', { type: 'pause', run: 'r_1', pause: { id: CHARGE.id } }, 2);
  await settle(el);
  assert.equal(reads, 3);
  assert.deepEqual($$($(el, 'stalwart-trace'), 'li').map(words), ['Step 1 read_order done']);
  assert.equal($$(el, 'stalwart-confirm').length, 1);
  assert.equal(sessionStorage.getItem('stalwart-last-event-id:u-17'), '2');
});

test('when the stream gives up, the status says "Reconnecting…"', async () => {
  const { el } = await chat({});
  FakeEventSource.opened[0].fail(FakeEventSource.CLOSED);
  await settle(el);
  assert.equal(words($(el, '[part=status]')), 'Reconnecting…');
  el.remove();
});

test('a reload comes back to the same conversation: the log, and what waits', async () => {
  const first = await chat({ 'POST /threads/u-17/messages': reply('I can charge 40.', { waiting: [CHARGE] }) });
  await type(first.el, 'charge 40');
  first.el.remove();
  const { el } = await chat({ 'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [CHARGE], not_notified: [] } });
  assert.deepEqual($$(el, '[part=log] .text').map(words), ['charge 40', 'I can charge 40.']);
  assert.equal($$(el, 'stalwart-confirm').length, 1);
});

test('setStrings re-renders every element on the page, nested ones too', async () => {
  const { el } = await chat({ 'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [{ ...CHARGE, irreversible: false }], not_notified: [] } });
  setStrings({ approve: 'Aprovar', send: 'Enviar', confirmTitle: 'Confirmar {tool}?' });
  await settle(el);
  const confirm = $(el, 'stalwart-confirm');
  await settle(confirm);
  assert.equal(words($(el, '[part=composer] button')), 'Enviar');
  assert.equal(words($(confirm, 'button[data-answer=approve]')), 'Aprovar');
  assert.equal(words($(confirm, 'h2')), 'Confirmar charge_card?');
});

test('the theme attribute is passed on to the nested elements', async () => {
  const { el } = await chat({ 'GET /threads/u-17/interrupts': { thread: 'u-17', waiting: [CHARGE], not_notified: [] } }, { thread: 'u-17', theme: 'dark' });
  assert.equal($(el, 'stalwart-confirm').getAttribute('theme'), 'dark');
  assert.equal($(el, 'stalwart-trace').getAttribute('theme'), 'dark');
});
