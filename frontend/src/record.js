/**
 * A decision in the conversation, said from the reader's side: "You approved: Charge 40 to order 4411"
 * where the thread's owner (the chat's reader) answered, "Fiona Walsh approved: ..." where someone else did;
 * made from the thread's `answer` events, so a reload, another tab or another person's answer
 * shows the same record.  A refused answer decided nothing and makes none.  An approval with changes says
 * each one ("You approved 120.00 EUR (asked 150.00 EUR): ..."), and the call as it was changed.
 */
import { t } from './strings.js';

/** The strings key of each decision's record; a decision without one is `recordOther`. */
const KEYS = {
  approve: 'recordApprove',
  skip: 'recordSkip',
  cancel_all: 'recordCancelAll',
  answer: 'recordAnswer',
  happened: 'recordHappened',
  did_not_happen: 'recordDidNotHappen',
  retry: 'recordRetry',
  done_by_hand: 'recordDoneByHand',
  abandon: 'recordAbandon',
  decline: 'recordDecline',
};
/** The issuer of the principal a server without authentication gives everyone: no one to name. */
const NOBODY = 'stalwart:none';

/**
 * @typedef {object} DecisionRecord
 * @property {string} pause the pause answered
 * @property {string} kind its kind
 * @property {string} decision
 * @property {string} outcome "taken", or "approval" for one approval of several
 * @property {string} title the call answered, in words: as a person's changes left it, where they made any
 * @property {unknown} [value] an ask's answer
 * @property {Array<Record<string, any>>} [edits] the values changed before approving: each `{name, label, asked, value, from, to}`
 * @property {string} who who answered, by name; "" where the service does not know
 * @property {boolean} mine whether the reader (the thread's owner) answered it
 * @property {string} at when, as an ISO time
 */

/**
 * The record of an answer event; null for one the service refused.
 * @param {Record<string, any>} event
 * @returns {DecisionRecord | null}
 */
export function recordOf(event) {
  if (!event || event.outcome === 'refused' || !event.decision) return null;
  return {
    pause: String(event.pause ?? ''),
    kind: String(event.kind ?? ''),
    decision: String(event.decision),
    outcome: String(event.outcome ?? 'taken'),
    title: String(event.changed_to?.title || event.title || event.tool || ''),
    value: event.value,
    edits: Array.isArray(event.edits) ? event.edits : [],
    who: whoOf(event),
    mine: mineOf(event),
    at: isoTime(event.at),
  };
}

/**
 * What the record says: "You ..." where the reader answered, "{who} ..." where someone else did (a record kept
 * before records said whose they were is the reader's where it names no one); "Nobody answered in time, ..." where
 * the pause's deadline ended it (the clock's answer, `expired`).
 * @param {DecisionRecord} record
 */
export function recordText(record) {
  // The clock's answer: nobody answered in time, whoever the event names.
  if (record.decision === 'expired') return t('recordExpired', { title: record.title });
  const delegated = record.kind === 'delegate' && record.decision === 'approve';
  const changes = (record.edits ?? []).map((edit) => t('editChange', { to: edit.to ?? show(edit.value), from: edit.from ?? show(edit.asked) })).join(', ');
  const edited = record.decision === 'edited' ? 'recordEdited' : changes && record.decision === 'approve' ? 'recordApproveEdited' : '';
  const key = delegated ? 'recordDelegate' : edited || (record.outcome === 'approval' ? 'recordApproval' : (KEYS[record.decision] ?? 'recordOther'));
  const value = show(record.value);
  const theirs = !(record.mine ?? !record.who) && record.who;
  return t(theirs ? `${key}By` : key, { title: record.title, value, decision: record.decision, who: record.who, changes });
}

/** A value as a person reads it: text as it is, anything else as JSON. @param {unknown} value */
export function show(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** When, as the page's language writes a date and time. @param {string} at */
export function whenText(at) {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? at : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Who answered, by the name the service gives them. @param {Record<string, any>} event */
function whoOf(event) {
  const principal = event.principal;
  if (principal?.iss === NOBODY) return '';
  return String(event.name || event.by || principal?.sub || '');
}

/**
 * Whether the thread's owner answered: as the event says (`by_owner`), else where it names no one (an answer
 * this page gave, or one from a service that signs no one in).
 * @param {Record<string, any>} event
 */
function mineOf(event) {
  if (typeof event.by_owner === 'boolean') return event.by_owner;
  return !event.principal || event.principal.iss === NOBODY;
}

/** An ISO time from the ISO time or the epoch seconds an event carries; now where it carries neither. @param {unknown} at */
function isoTime(at) {
  if (typeof at === 'number') return new Date(at * 1000).toISOString();
  return typeof at === 'string' && at ? at : new Date().toISOString();
}
