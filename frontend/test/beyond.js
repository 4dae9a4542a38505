// What the package has beyond the chapter's tables: the inbox of what waits across
// threads (issue 15), its row in the element table and its strings.  The chapter's
// tests compare the rest with the chapter; these are compared with this copy.

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

/** The inbox's strings, as shipped. */
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
};
