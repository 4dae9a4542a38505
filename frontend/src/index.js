/**
 * @stalwart-agents/agent-ui: importing it defines the five elements.
 *
 *   <stalwart-chat thread="u-17" base="/agent"></stalwart-chat>
 */
import { StalwartChat } from './components/stalwart-chat/stalwart-chat.js';
import { StalwartConfirm } from './components/stalwart-confirm/stalwart-confirm.js';
import { StalwartDecision } from './components/stalwart-decision/stalwart-decision.js';
import { StalwartRollback } from './components/stalwart-rollback/stalwart-rollback.js';
import { StalwartTrace } from './components/stalwart-trace/stalwart-trace.js';

export { StalwartChat, StalwartConfirm, StalwartDecision, StalwartRollback, StalwartTrace };
export { format, setStrings, shipped, strings } from './strings.js';

// Guarded, so a page that loads the bundle twice (or defines a tag itself) keeps working.
if (!customElements.get('stalwart-chat')) customElements.define('stalwart-chat', StalwartChat);
if (!customElements.get('stalwart-confirm')) customElements.define('stalwart-confirm', StalwartConfirm);
if (!customElements.get('stalwart-decision')) customElements.define('stalwart-decision', StalwartDecision);
if (!customElements.get('stalwart-rollback')) customElements.define('stalwart-rollback', StalwartRollback);
if (!customElements.get('stalwart-trace')) customElements.define('stalwart-trace', StalwartTrace);
