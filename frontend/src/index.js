/**
 * @stalwart-agents/agent-ui: importing it defines the seven elements, and signs in
 * each chat and inbox marked `data-signin="fragment"` (see signin.js).
 *
 *   <stalwart-chat thread="u-17" base="/agent"></stalwart-chat>
 */
import { StalwartChat } from './components/stalwart-chat/stalwart-chat.js';
import { StalwartConfirm } from './components/stalwart-confirm/stalwart-confirm.js';
import { StalwartDecision } from './components/stalwart-decision/stalwart-decision.js';
import { StalwartHistory } from './components/stalwart-history/stalwart-history.js';
import { StalwartInbox } from './components/stalwart-inbox/stalwart-inbox.js';
import { StalwartRollback } from './components/stalwart-rollback/stalwart-rollback.js';
import { StalwartTrace } from './components/stalwart-trace/stalwart-trace.js';
import { signInMarked } from './signin.js';

export { StalwartChat, StalwartConfirm, StalwartDecision, StalwartHistory, StalwartInbox, StalwartRollback, StalwartTrace };
export { format, setStrings, shipped, strings } from './strings.js';
export { signInFromFragment } from './signin.js';

// Guarded, so a page that loads the bundle twice (or defines a tag itself) keeps working.
if (!customElements.get('stalwart-chat')) customElements.define('stalwart-chat', StalwartChat);
if (!customElements.get('stalwart-confirm')) customElements.define('stalwart-confirm', StalwartConfirm);
if (!customElements.get('stalwart-decision')) customElements.define('stalwart-decision', StalwartDecision);
if (!customElements.get('stalwart-rollback')) customElements.define('stalwart-rollback', StalwartRollback);
if (!customElements.get('stalwart-trace')) customElements.define('stalwart-trace', StalwartTrace);
if (!customElements.get('stalwart-inbox')) customElements.define('stalwart-inbox', StalwartInbox);
if (!customElements.get('stalwart-history')) customElements.define('stalwart-history', StalwartHistory);

// After the definitions, so a chat's (or an inbox's) first request already carries the token.
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => signInMarked(document), { once: true });
} else {
  signInMarked(document);
}
