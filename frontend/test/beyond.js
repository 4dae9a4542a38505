// What the package has beyond the chapter's tables: the inbox of what waits across
// threads (issue 15), its row in the element table and its strings; and the words for
// a person deciding (issue 16): reasons, decision records, results, the empty page.
// The chapter's tests compare the rest with the chapter; these are compared with this copy.

/** <stalwart-inbox>, as the element table would list it. */
export const ELEMENTS = {
  'stalwart-inbox': {
    attributes: ['base', 'kind', 'page-size', 'theme', 'tool'],
    properties: ['fetcher'],
    events: [],
    parts: ['title', 'refresh', 'status', 'empty', 'list', 'row', 'thread', 'last-words', 'approvals', 'row-error', 'more'],
    slots: [],
  },
};

/** The inbox's strings and issue 16's, as shipped. */
export const STRINGS = {
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
};
