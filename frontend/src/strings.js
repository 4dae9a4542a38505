/**
 * Every word the interface shows, by key: the chat's, the inbox's, then the words for a person deciding
 * (reasons, decision records, results and the empty page's).
 *
 * `setStrings()` replaces any of them and re-renders every element on the page;
 * a `{name}` in a string is filled by `format()` where the string is shown.
 */

/** @type {Readonly<Record<string, string>>} */
export const shipped = Object.freeze({
  conversation: 'Conversation',
  placeholder: 'Write a message',
  send: 'Send',
  sending: 'Sending…',
  waiting: 'Waiting for your decision',
  confirmTitle: 'Confirm {tool}?',
  argumentsTitle: 'What it will use',
  origin_typed: 'you typed it',
  origin_reply: 'you answered it',
  origin_context: 'from your account',
  origin_computed: 'calculated',
  origin_model: 'the assistant wrote it',
  origin_result: 'from an earlier step',
  origin_agent: 'from another assistant',
  reasonsTitle: 'Why this needs you',
  irreversible: 'Nothing can undo this step once it runs.',
  approve: 'Approve',
  skip: 'Skip this step',
  cancelAll: 'Cancel everything',
  refused: 'Not done',
  rule: 'Rule',
  showRule: 'Which rule?',
  rollbackTitle: 'Undoing what this run did',
  undone: 'Undone',
  notUndoable: 'Could not be undone',
  stuck: 'Undoing {tool} failed. What should happen?',
  retry: 'Try again',
  doneByHand: 'I undid it myself',
  abandon: 'Leave it',
  unknownTitle: 'Did {tool} take effect?',
  happened: 'Yes, it happened',
  didNotHappen: 'No, it did not',
  delegateTitle: "I couldn't work that out. Shall I pass it to the assistant?",
  delegateApprove: 'Yes, pass it on',
  decline: 'No',
  reconnecting: 'Reconnecting…',
  traceTitle: 'What happened',
  step: 'Step {step}',
  error: 'Something went wrong: {message}',
  thumbUp: 'Helpful',
  thumbDown: 'Not helpful',
  thumbsNotice: 'A rated message is kept to improve the assistant, and nothing else of the conversation.',
  sources: 'Sources',
  // <stalwart-inbox>.
  inboxTitle: 'Waiting for a decision',
  inboxEmpty: 'Nothing is waiting for a decision.',
  refresh: 'Refresh',
  loadMore: 'Load more',
  loading: 'Loading…',
  threadTitle: 'Thread {thread}',
  lastWords: 'Last words',
  approvalsNone: 'Needs {needed} approvals, none given yet',
  approvalsGiven: 'Approved by {names} ({given} of {needed})',
  approvalCounted: 'Approval counted: {given} of {needed}',
  answered: 'Answered thread {thread}',
  // What a person needs to decide: an origin naming its call, reasons in words, the irreversible approve.
  origin_from: 'from {tool}',
  showSource: 'What it came from',
  sourceTooLarge: 'Too large to show here.',
  approveIrreversible: 'Approve — cannot be undone',
  answerLabel: 'Your answer',
  reason_write: 'It changes something outside this conversation.',
  reason_argument_origin: 'You did not give {arg} yourself: check it.',
  reason_tainted_call: 'It comes after {tool}, whose answer is not trusted.',
  reason_rule: 'A rule asks for a person: {rule}.',
  reason_missing: 'It needs {arg}, which was not given.',
  reason_unread: 'The agent could not read that message.',
  reason_language: 'The agent reads {language} only.',
  reason_undo_failed: 'Undoing it failed: {error}.',
  reason_outcome_unknown: 'It may or may not have happened: {cause}.',
  // The conversation: what each step gave, what was decided, and what the agent does.
  resultsTitle: 'Results',
  recordApprove: 'You approved: {title}',
  recordApproval: 'You approved, and more approvals are needed: {title}',
  recordSkip: 'You skipped: {title}',
  recordCancelAll: 'Cancelled: {title}',
  recordAnswer: 'You answered {value}: {title}',
  recordHappened: 'You said it happened: {title}',
  recordDidNotHappen: 'You said it did not happen: {title}',
  recordRetry: 'You asked to try undoing again: {title}',
  recordDoneByHand: 'You undid it yourself: {title}',
  recordAbandon: 'You left it: {title}',
  recordDelegate: 'You passed it on to the assistant',
  recordDecline: 'You did not pass it on',
  recordOther: 'You answered {decision}: {title}',
  recordBy: 'by {who}',
  examplesTitle: 'Try',
  // The card from any reader's side (issue 25): origins, who decides, who asked, records by name, outcomes.
  origin_typed_by: '{who} typed it',
  origin_reply_by: '{who} answered it',
  origin_context_of: 'from {who}’s account',
  origin_typed_them: 'the person who asked typed it',
  origin_reply_them: 'the person who asked answered it',
  origin_context_them: 'from the account of the person who asked',
  decidesApprover: 'Needs an approver from {who}',
  waitsFor: 'Waits for {who} to decide',
  askedBy: 'Asked by {who}, {when}',
  askedByYou: 'You asked, {when}',
  askedAt: 'Asked {when}',
  reason_rule_failed: 'The approver rule {rule} could not be checked; the team running this service has been told.',
  recordApproveBy: '{who} approved: {title}',
  recordApprovalBy: '{who} approved, and more approvals are needed: {title}',
  recordSkipBy: '{who} skipped: {title}',
  recordCancelAllBy: '{who} cancelled: {title}',
  recordAnswerBy: '{who} answered {value}: {title}',
  recordHappenedBy: '{who} said it happened: {title}',
  recordDidNotHappenBy: '{who} said it did not happen: {title}',
  recordRetryBy: '{who} asked to try undoing again: {title}',
  recordDoneByHandBy: '{who} undid it by hand: {title}',
  recordAbandonBy: '{who} left it: {title}',
  recordDelegateBy: '{who} passed it on to the assistant',
  recordDeclineBy: '{who} did not pass it on',
  recordOtherBy: '{who} answered {decision}: {title}',
  outcomeTitle: 'What happened',
  outcome_done: '{title}: done',
  outcome_failed: '{title}: failed',
  outcome_unknown: '{title}: nobody knows yet whether it happened',
  outcome_started: '{title}: running',
  outcome_skipped: '{title}: skipped',
  outcome_cancelled: '{title}: cancelled',
  outcomeWaits: 'It now waits for another answer.',
  outcomeCounted: 'Your approval is counted; it waits for another person’s before it runs.',
  linkExpires: 'This link answers once, until {when}.',
  linkSignIn: 'To answer, sign in: it waits in your inbox.',
  linkTaken: 'Answer taken',
  linkUsed: 'Already answered',
  linkUsedBy: '{who} already answered this: {decision}, {when}.',
  linkUsedWhat: 'It was answered: {decision}, {when}.',
  linkUsedAlready: 'This was already answered, and this link can no longer be used.',
  linkExpired: 'This link has expired',
  linkBroken: 'This link does not work',
  linkBrokenText: 'It is not a link this service made, or it was changed.',
  linkSignInTitle: 'Sign in to answer',
  linkNotTaken: 'This answer was not taken',
  linkFailed: 'The service failed on this link; its log has the details.',
  inboxAnswered: 'You answered {decision}: {title}',
  // The inbox as a desk: its filters by tool and by kind of pause.
  filterTool: 'Tool',
  filterKind: 'Kind',
  allTools: 'All tools',
  allKinds: 'All kinds',
  kind_confirm: 'Calls to approve',
  kind_ask: 'Questions to answer',
  kind_outcome_unknown: 'Calls that may not have happened',
  kind_saga_stuck: 'Undos that failed',
  kind_delegate: 'Turns to pass on',
  // Deadlines: when a pause ends if nobody answers, who else is asked, and what became of one nobody answered.
  deadlineSkip: 'Answer by {when}; after that it is skipped.',
  deadlineCancel: 'Answer by {when}; after that the whole request is cancelled.',
  escalatesAt: 'If nobody answers by {when}, {who} will be asked too.',
  overdueAt: 'If nobody answers by {when}, it is sent again as overdue.',
  escalated: 'Nobody has answered yet, so {who} may answer now too.',
  escalatedOverdue: 'Overdue: nobody has answered in time.',
  expiredSkip: 'Nobody answered by {when}, so it was skipped.',
  expiredCancel: 'Nobody answered by {when}, so the whole request was cancelled.',
  outcome_expired: '{title}: not done, nobody answered in time',
  recordExpired: 'Nobody answered in time, so it was not done: {title}',
  requestExpired: 'This request has expired',
  linkNothingDone: 'Nothing was done with this link.',
  // Changing a call before approving it, and deciding several at once (issue 27).
  origin_edited: 'changed before it was approved',
  origin_edited_by: 'changed by {who}',
  reason_edited: 'It was changed after it was asked.',
  mailNew: 'Waiting for your decision: {title}',
  mailReminder: 'Reminder: {title}',
  mailOverdue: 'Overdue: {title}',
  approveEdited: 'Approve with changes',
  approveEditedIrreversible: 'Approve with changes — cannot be undone',
  editAsked: 'asked {shown}',
  editReset: 'Undo my changes',
  editNumber: 'Enter a number for {label} to approve.',
  editInteger: 'Enter a whole number for {label} to approve.',
  editChange: '{to} (asked {from})',
  recordApproveEdited: 'You approved {changes}: {title}',
  recordApproveEditedBy: '{who} approved {changes}: {title}',
  recordEdited: 'You changed {changes}, so it is asked again: {title}',
  recordEditedBy: '{who} changed {changes}, so it is asked again: {title}',
  batchSelect: 'Select',
  batchSelectCall: 'Select {title}',
  batchSelected: '{count} selected',
  batchOneTool: 'Only calls to {tool} can join this selection.',
  batchApprove: 'Approve {count}',
  batchSkip: 'Skip {count}',
  batchClear: 'Clear selection',
  batchSure_approve: 'Approve these {count} calls?',
  batchSure_skip: 'Skip these {count} calls?',
  batchBack: 'Back',
  batchTotal: '{label} in total: {sum}',
  batchIrreversible: 'Nothing can undo these calls once they run.',
  batchDone_approve: 'You approved {done} of {count}',
  batchDone_skip: 'You skipped {done} of {count}',
  batchTaken: '{title}: answered',
  batchStale: '{title}: someone else answered first',
  batchNotYours: '{title}: not yours to answer',
  batchFailed: '{title}: not done, {message}',
  // A thread's decision history: every decision on its pauses, oldest first, as the service keeps it.
  historyTitle: 'Decisions',
  historyEmpty: 'No decisions yet.',
  historyBroken: 'This record does not match what was written: a decision in it was changed, removed or put out of order since. Do not rely on it, and tell the team running this service.',
  historySomeone: 'Someone',
  historyRule: 'Approver rule: {rules}',
  historyOwner: 'No approver rule: the person who asked decides',
  historyApprovals: '{given} of {needed} approvals',
  historyChanges: 'Changed before approving:',
  historyChange: '{label}: {from} → {to}',
  historyWaited: 'waited {time}',
  historyUnverified: 'identity not checked',
  channel_http: 'in the app',
  channel_link: 'through a one-time link',
  channel_slack: 'in Slack',
  channel_mail: 'by email',
  channel_clock: 'by the deadline',
  channel_python: 'from a program',
  channel_langgraph: 'from a LangGraph program',
});

/** The strings in force: the shipped ones, with whatever `setStrings()` replaced. */
export const strings = { ...shipped };

/** @type {Set<{ requestUpdate(): void }>} */
const live = new Set();

/**
 * Replace any of the strings; every element on the page shows the new words.
 * @param {Record<string, string>} replacements
 */
export function setStrings(replacements) {
  for (const [key, text] of Object.entries(replacements ?? {})) {
    if (typeof text !== 'string') throw new TypeError(`setStrings: the string for "${key}" is not a string`);
    strings[key] = text;
  }
  for (const host of live) host.requestUpdate();
}

/**
 * Fill each `{name}` of `text` from `values`; a name without a value stays as written.
 * @param {string} text
 * @param {Record<string, unknown>} [values]
 */
export function format(text, values = {}) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (values[name] == null ? whole : String(values[name])));
}

/**
 * The string for `key`, filled; a key the table lacks shows as itself.
 * @param {string} key
 * @param {Record<string, unknown>} [values]
 */
export function t(key, values) {
  return format(Object.hasOwn(strings, key) ? strings[key] : key, values);
}

/**
 * A Lit reactive controller that keeps its host in the set `setStrings()` re-renders.
 * It needs nothing of Lit but the host's `addController`.
 */
export class StringsController {
  /** @param {{ addController(c: object): void, requestUpdate(): void }} host */
  constructor(host) {
    this.host = host;
    host.addController(this);
  }

  hostConnected() {
    live.add(this.host);
  }

  hostDisconnected() {
    live.delete(this.host);
  }
}
