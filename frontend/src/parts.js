/**
 * The CSS parts of each element that another one shows inside its own shadow root, as their JSDoc documents them
 * (test/manifest.test.js holds the two together). The element that nests one exports these parts under the same
 * names, so a page styles a confirmation inside the chat as `stalwart-chat::part(choices)`, as it would a
 * `<stalwart-confirm>` of its own.
 */
const NESTED = {
  'stalwart-confirm': [
    'confirm', 'turn', 'arguments', 'reasons', 'irreversible', 'choices', 'asked', 'deciders', 'waits-for', 'deadline',
    'escalation', 'expired', 'edit-input', 'asked-value', 'edit-error', 'edit-reset',
  ],
  'stalwart-decision': ['decision', 'rule'],
  'stalwart-history': [
    'history', 'history-title', 'history-refresh', 'history-status', 'history-broken', 'history-empty', 'history-list',
    'history-entry', 'history-what', 'history-approvals', 'history-changes', 'history-rule', 'history-when', 'history-wait',
  ],
  'stalwart-rollback': ['rollback'],
  'stalwart-trace': ['trace'],
};

/** The parts of each nested element, by tag. */
export const nestedParts = /** @type {Readonly<Record<string, readonly string[]>>} */ (NESTED);

/** The `exportparts` value that lets a page reach every part of the nested element `tag`. @param {keyof NESTED} tag */
export function exported(tag) {
  return NESTED[tag].join(', ');
}
