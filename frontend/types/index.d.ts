// Types for @stalwart-agents/agent-ui.  Importing the package defines the seven elements.
import { LitElement } from 'lit';

/** Where an argument's value came from. */
export type Origin = 'typed' | 'reply' | 'context' | 'computed' | 'model' | 'agent' | `result:${string}` | (string & {});

export interface Argument {
  name: string;
  value: unknown;
  origin: Origin;
  /** A person's name for the parameter ("Order"); the card shows it in place of `name`. */
  label?: string;
  /** Where origin is `result:<step>.<call>`: that call, and what it gave (absent, with `truncated`, over 2 KiB). */
  source?: { tool: string; step: number; value?: unknown; truncated?: true };
}

export type PauseKind = 'confirm' | 'outcome_unknown' | 'saga_stuck' | 'ask' | 'delegate';

export type Answer =
  | 'approve' | 'skip' | 'cancel_all'
  | 'happened' | 'did_not_happen'
  | 'retry' | 'done_by_hand' | 'abandon'
  | 'answer'
  | 'decline';

/** Words by their key in the strings (`StringKey`), with the values that fill them; a `when` is an ISO 8601 time. */
export interface Said {
  key: StringKey | (string & {});
  values: Record<string, unknown>;
}

/** One argument as the card shows it to its reader. */
export interface CardArgument {
  name: string;
  /** A person's name for it ("Amount"). */
  label: string;
  value: unknown;
  /** The value as a person reads it, in its unit where the tool gives one ("1,500.00 EUR"). */
  shown: string;
  /** Where it came from, from the reader's side ("you typed it", "Alice typed it"). */
  origin: Said;
  /** The earlier call it came from: that call's title, and what it gave where small enough. */
  source?: { title: string; value?: unknown };
  /** How this reader may type a new value before approving (an input of that kind); absent where they may not. */
  edit?: 'number' | 'integer' | 'string' | 'boolean';
  /** The value's unit where the tool gives one ("EUR": a three-letter code is a currency). */
  unit?: string;
  /** On a pause someone's change opened: the value before the change, as JSON and as a person reads it. */
  asked?: { value: unknown; shown: string };
}

/** One answer the card's reader may give. */
export interface CardAnswer {
  decision: Answer | (string & {});
  words: Said;
  style: 'primary' | 'secondary' | 'danger';
}

/** What one reader sees of a pause, built by the server: `<stalwart-confirm>` renders it where a pause carries it. */
export interface Card {
  kind: PauseKind;
  title: string;
  question: string;
  irreversible: boolean;
  arguments: CardArgument[];
  reasons: Said[];
  /** Who must decide, where it is not simply the person who asked: the approvals so far, or a rule's words. */
  deciders: Said | null;
  /** Who asked, and when. */
  asked: Said;
  /** Only the answers this reader may give. */
  answers: CardAnswer[];
  /** Why this reader cannot approve, and who can ("Waits for finance to decide"); null where they can. */
  waits_for: Said | null;
  /** When the pause ends if nobody answers, and what then (`deadlineSkip`, `deadlineCancel`); null for none. */
  deadline?: Said | null;
  /** Who else is asked if nobody answers, and when (`escalatesAt`, `overdueAt`), or that they have been
   * (`escalated`, `escalatedOverdue`); null for none. */
  escalation?: Said | null;
}

/** A pause's escalation: when whoever `to` names may answer too ("the managers"; null: it is announced again as
 * overdue), and whether that moment has come. */
export interface Escalation {
  /** An ISO 8601 time. */
  at: string;
  done: boolean;
  to: string | null;
}

/** One thing a run waits on, as the backend lists it. */
export interface Pause {
  id: string;
  kind: PauseKind;
  thread: string;
  run: string;
  step: number;
  tool: string;
  /** The described call ("Charge 40 to order 4411"), else the tool's label, else its name: the card's title. */
  title?: string;
  /** The tool's label ("Charge a card"), its name where it has none. */
  label?: string;
  question: string;
  arguments: Argument[];
  reasons: string[];
  irreversible: boolean;
  answers: Answer[];
  token: string;
  created_at: string;
  /** ask: the question to answer. */
  prompt?: string;
  /** ask: the argument the answer fills. */
  argument?: string;
  /** delegate: the turn the model would be given. */
  turn?: string;
  /** saga_stuck: the undo that keeps failing. */
  undo?: { tool: string; error: string | null; attempts: number };
  /** saga_stuck: what still needs undoing after it. */
  pending?: Array<{ step: number; tool: string; undo: string | null }>;
  /** A tool's confirm pause that needs more than one person (four eyes): who has approved so far. */
  approvals?: Approvals;
  /** Who began the turn that opened it, by name, where the service knows. */
  asked_by?: string;
  /** What the reader who asked for it sees of it; absent from a backend that builds no card. */
  card?: Card;
  /** When it ends if nobody answers (an ISO 8601 time), where a deadline times it. */
  expires_at?: string;
  /** What the run does then: leave the call unmade and go on (`skip`), or undo the whole request (`cancel_all`). */
  on_expiry?: 'skip' | 'cancel_all';
  /** Who else may answer if nobody does in time, and when. */
  escalation?: Escalation;
  /** Set by the chat and the inbox on a pause a late answer found expired (410 `pause_expired`): its card says so,
   * with no answers.  A card whose `expires_at` passes while it is shown says so too. */
  expired?: boolean;
  /** confirm: the arguments a person may change before approving. */
  editable?: string[];
  /** confirm, opened by a person's change: the call's arguments as first asked, and who changed them. */
  proposed?: Argument[];
  edited_by?: string;
}

/** One person's approval of a pause that needs more than one. */
export interface Approval {
  /** Who approved, as the service names them. */
  by: string;
  principal: { iss: string; sub: string; verified: boolean };
  /** When, as an ISO 8601 time. */
  at: string;
}

export interface Approvals {
  needed: number;
  given: Approval[];
}

/** A pause as the inbox lists it: `turn` is its thread's words, the turn it came from. */
export interface InboxPause extends Pause {
  turn?: string;
}

/** One page of `GET /interrupts`: what waits across threads, newest first, and the cursor of the next page. */
export interface InboxPage {
  waiting: InboxPause[];
  next: string | null;
}

/** What `POST /interrupts/answers` (the inbox's "Approve 3") says of each answer sent, in the order sent: taken
 * (200, `decision` as taken and what became of its call) or refused alone (`error`: `interrupt_stale`, ...). */
export interface AnswerOutcome {
  interrupt_id: string;
  status: number;
  decision?: string;
  steps?: TraceEvent[];
  waiting?: string[];
  error?: string;
  message?: string;
}

export interface RollbackLine {
  step: number;
  tool: string;
  undo: string | null;
  arguments: Argument[];
}

export interface RollbackReport {
  reason: string;
  status: 'complete' | 'waiting' | 'abandoned';
  undone: Array<RollbackLine & { by: 'tool' | 'person' }>;
  not_undone: Array<RollbackLine & { why: 'irreversible' | 'no_undo' | 'abandoned' }>;
  pending?: Array<{ step: number; tool: string; undo: string | null }>;
}

/** A step as the stream sends it (`key` is `2`, or `2.1` for a team's step's first call), or as an answer lists it. */
export interface TraceEvent {
  type?: 'turn' | 'step' | 'pause' | 'answer' | 'run' | 'rollback' | 'recovered' | (string & {});
  run?: string;
  key?: string;
  step?: number;
  call?: number | null;
  tool?: string;
  status?: string;
  arguments?: Argument[];
  [field: string]: unknown;
}

/** What `GET {base}/config.json` says of the agent: the chat shows it before the first turn. */
export interface AgentConfig {
  agent: string;
  base: string;
  description?: string;
  /** Turns the agent reads; a click puts one in the composer. */
  examples?: string[];
}

/** An `answer` event of the thread's stream: the chat makes a decision record of each one not refused. */
export interface AnswerEvent {
  type: 'answer';
  pause: string;
  kind?: PauseKind;
  tool?: string;
  title?: string;
  decision: Answer | (string & {});
  value?: unknown;
  by?: string | null;
  /** The answerer's display name. */
  name?: string | null;
  /** Whether the answerer is the thread's owner (the chat's reader): their record says "You ...". */
  by_owner?: boolean;
  principal?: { iss: string; sub: string; verified: boolean } | null;
  channel?: string;
  outcome: 'taken' | 'approval' | 'refused';
  /** When, as an ISO 8601 time. */
  at?: string;
  /** An approval with changes (decision `approve`, or `edited` where the changed call is asked again): each change. */
  edits?: Edit[];
  /** The call as the changes left it: the record names it by this title. */
  changed_to?: { title: string; arguments: Argument[] };
}

/** One value a person changed before approving, as asked and as approved, in JSON and in words. */
export interface Edit {
  name: string;
  label: string;
  asked: unknown;
  value: unknown;
  /** As a person reads them ("150.00 EUR", "120.00 EUR"). */
  from: string;
  to: string;
}

/** The `detail` of a `stalwart-decision` event. */
export interface DecisionDetail {
  interrupt: Pause;
  decision: Answer | (string & {});
  /** The person's answer to an `ask`. */
  value?: string;
  /** An approval's changes: only the values the person changed, by argument name, as JSON. */
  edits?: Record<string, unknown>;
}

/** How the service knew who decided: their sign-in token, a signed link, Slack, a mail reply, the clock, or nothing. */
export type Verified = 'token' | 'link' | 'slack' | 'mail' | 'clock' | 'none';

/** Where a decision came from. */
export type Channel = 'http' | 'link' | 'slack' | 'mail' | 'clock' | 'python' | 'langgraph';

/** One entry of a thread's decision record, as `GET {base}/threads/{thread}/decisions` lists it. */
export interface DecisionEntry {
  /** Its place in the record, from 1. */
  seq: number;
  /** When it was decided, and when the pause was asked (ISO 8601 times). */
  at: string;
  asked_at: string;
  /** Seconds between the two. */
  waited: number;
  pause: string;
  run: string;
  kind: PauseKind;
  tool: string;
  /** The call, in words. */
  title: string;
  decision: Answer | 'expired' | 'edited' | (string & {});
  /** `approval`: one approval of several (four eyes), which runs nothing yet. */
  outcome: 'taken' | 'approval' | (string & {});
  /** An ask's answer. */
  value: unknown;
  /** Who decided: the issuer and subject of their sign-in (null where there was none), their name as a card showed it,
   * and how the service knew them. */
  by: { issuer: string | null; subject: string | null; name: string | null; verified: Verified | (string & {}) };
  /** Whether the reader gave it. */
  mine: boolean;
  channel: Channel | (string & {});
  /** The approver rules that governed it; none where the thread's owner decides. */
  rules: string[];
  /** Where more than one person decides: approvals given with this one, and needed. */
  approvals: { given: number; needed: number } | null;
  /** The values changed before approving. */
  edits: Edit[];
  /** The call as the person was shown it. */
  shown?: { question: string; arguments: Argument[]; reasons: string[]; irreversible: boolean };
  /** The call as it then runs: its changed arguments, or `as_shown`; null where the decision runs nothing. */
  runs?: { tool: string; arguments?: Argument[]; as_shown?: true } | null;
  /** The digest of the entry before it, and its own (64 hex digits each). */
  prev: string;
  digest: string;
}

/** A thread's decision record: `intact` is false where the service found it changed since it was written. */
export interface DecisionHistory {
  thread: string;
  intact: boolean;
  decisions: DecisionEntry[];
}

export type StalwartDecisionEvent = CustomEvent<DecisionDetail>;

export type Theme = 'light' | 'dark';

/** The keys of the shipped strings. */
export type StringKey =
  | 'conversation' | 'placeholder' | 'send' | 'sending' | 'waiting'
  | 'confirmTitle' | 'argumentsTitle'
  | 'origin_typed' | 'origin_reply' | 'origin_context' | 'origin_computed' | 'origin_model' | 'origin_result' | 'origin_agent'
  | 'reasonsTitle' | 'irreversible' | 'approve' | 'skip' | 'cancelAll'
  | 'refused' | 'rule' | 'showRule'
  | 'rollbackTitle' | 'undone' | 'notUndoable'
  | 'stuck' | 'retry' | 'doneByHand' | 'abandon'
  | 'unknownTitle' | 'happened' | 'didNotHappen'
  | 'delegateTitle' | 'delegateApprove' | 'decline'
  | 'reconnecting' | 'traceTitle' | 'step' | 'error'
  | 'thumbUp' | 'thumbDown' | 'thumbsNotice' | 'sources'
  | 'inboxTitle' | 'inboxEmpty' | 'refresh' | 'loadMore' | 'loading' | 'threadTitle' | 'lastWords'
  | 'approvalsNone' | 'approvalsGiven' | 'approvalCounted' | 'answered'
  | 'origin_from' | 'showSource' | 'sourceTooLarge' | 'approveIrreversible' | 'answerLabel'
  | 'reason_write' | 'reason_argument_origin' | 'reason_tainted_call' | 'reason_rule' | 'reason_missing'
  | 'reason_unread' | 'reason_language' | 'reason_undo_failed' | 'reason_outcome_unknown'
  | 'resultsTitle' | 'recordApprove' | 'recordApproval' | 'recordSkip' | 'recordCancelAll' | 'recordAnswer'
  | 'recordHappened' | 'recordDidNotHappen' | 'recordRetry' | 'recordDoneByHand' | 'recordAbandon'
  | 'recordDelegate' | 'recordDecline' | 'recordOther' | 'recordBy' | 'examplesTitle'
  | 'origin_typed_by' | 'origin_reply_by' | 'origin_context_of' | 'origin_typed_them' | 'origin_reply_them'
  | 'origin_context_them' | 'decidesApprover' | 'waitsFor' | 'askedBy'
  | 'askedByYou' | 'askedAt' | 'reason_rule_failed' | 'recordApproveBy' | 'recordApprovalBy'
  | 'recordSkipBy' | 'recordCancelAllBy' | 'recordAnswerBy' | 'recordHappenedBy' | 'recordDidNotHappenBy'
  | 'recordRetryBy' | 'recordDoneByHandBy' | 'recordAbandonBy' | 'recordDelegateBy' | 'recordDeclineBy'
  | 'recordOtherBy' | 'outcomeTitle' | 'outcome_done' | 'outcome_failed' | 'outcome_unknown'
  | 'outcome_started' | 'outcome_skipped' | 'outcome_cancelled' | 'outcomeWaits' | 'outcomeCounted'
  | 'linkExpires' | 'linkSignIn' | 'linkTaken' | 'linkUsed' | 'linkUsedBy' | 'linkUsedWhat' | 'linkUsedAlready'
  | 'linkExpired' | 'linkBroken' | 'linkBrokenText' | 'linkSignInTitle' | 'linkNotTaken' | 'linkFailed'
  | 'inboxAnswered' | 'filterTool' | 'filterKind' | 'allTools' | 'allKinds' | 'kind_confirm' | 'kind_ask'
  | 'kind_outcome_unknown' | 'kind_saga_stuck' | 'kind_delegate'
  | 'deadlineSkip' | 'deadlineCancel' | 'escalatesAt' | 'overdueAt' | 'escalated' | 'escalatedOverdue'
  | 'expiredSkip' | 'expiredCancel' | 'outcome_expired' | 'recordExpired' | 'requestExpired' | 'linkNothingDone'
  | 'origin_edited' | 'origin_edited_by' | 'reason_edited' | 'mailNew' | 'mailReminder' | 'mailOverdue' | 'approveEdited' | 'approveEditedIrreversible' | 'editAsked' | 'editReset' | 'editNumber' | 'editInteger' | 'editChange' | 'recordApproveEdited' | 'recordApproveEditedBy' | 'recordEdited' | 'recordEditedBy'
  | 'batchSelect' | 'batchSelectCall' | 'batchSelected' | 'batchOneTool' | 'batchApprove' | 'batchSkip' | 'batchClear' | 'batchSure_approve' | 'batchSure_skip'
  | 'batchBack' | 'batchTotal' | 'batchIrreversible' | 'batchDone_approve' | 'batchDone_skip' | 'batchTaken' | 'batchStale' | 'batchNotYours' | 'batchFailed'
  | 'historyTitle' | 'historyEmpty' | 'historyBroken' | 'historySomeone' | 'historyRule' | 'historyOwner' | 'historyApprovals'
  | 'historyChanges' | 'historyChange' | 'historyWaited' | 'historyUnverified'
  | 'channel_http' | 'channel_link' | 'channel_slack' | 'channel_mail' | 'channel_clock' | 'channel_python' | 'channel_langgraph';

export type Strings = Record<StringKey, string>;

/** The strings as shipped. */
export declare const shipped: Readonly<Strings>;
/** The strings in force (the shipped ones with whatever setStrings replaced). */
export declare const strings: Readonly<Strings>;
/** Replace any of the strings; every element on the page re-renders with them. */
export declare function setStrings(replacements: Partial<Strings>): void;
/** Fill each `{name}` of `text` from `values`; a name without a value stays as written. */
export declare function format(text: string, values?: Record<string, unknown>): string;
/**
 * Sign a chat (or an inbox) in with the access token in the page's fragment (`#access_token=...`, as an OpenID
 * Connect provider's redirect hands it over), or the one kept earlier in this tab: the token is kept in
 * `sessionStorage["stalwart-access-token"]`, the fragment leaves the address bar, and `chat.fetcher`
 * then sends `Authorization: Bearer <token>` on every request.  The token in use; "" for none, when the
 * chat is left as it was.  The bundle does this itself for each `<stalwart-chat data-signin="fragment">`
 * and `<stalwart-inbox data-signin="fragment">`.
 */
export declare function signInFromFragment(chat: { fetcher: typeof fetch }): string;

declare class StalwartElement extends LitElement {
  /** "light" or "dark" fixes the colours; with neither, the person's setting chooses. */
  theme?: Theme | '';
}

/** The conversation, and whatever waits for a decision. */
export declare class StalwartChat extends StalwartElement {
  /** Where the backend's routes are; "" for the page's own origin. */
  base: string;
  /** The conversation's id; "" for one kept in localStorage["stalwart-thread"]. */
  thread: string;
  /** Show a Helpful / Not helpful pair under each reply. */
  thumbs: boolean;
  /** Opens the step stream; `url => new EventSource(url)` by default. */
  eventSource: (url: string) => EventSource;
  /** Makes every request; `fetch` by default.  Set it to add an `Authorization: Bearer` header. */
  fetcher: typeof fetch;
}

/** One call that waits: its arguments with their origins, the reasons, the irreversible warning and its answers. */
export declare class StalwartConfirm extends StalwartElement {
  interrupt: Pause | null;
}

/** A refusal in one sentence, its rule on disclosure. */
export declare class StalwartDecision extends StalwartElement {
  rule: string;
  sentence: string;
}

/** What a run undid, and what it could not. */
export declare class StalwartRollback extends StalwartElement {
  report: RollbackReport | null;
}

/** A thread's steps. */
export declare class StalwartTrace extends StalwartElement {
  events: TraceEvent[];
}

/** What waits for a decision across threads, newest first, each pause with its thread's last words. */
export declare class StalwartInbox extends StalwartElement {
  /** Where the backend's routes are; "" for the page's own origin. */
  base: string;
  /** Only pauses of this kind; "" for every kind. */
  kind: PauseKind | '';
  /** Only pauses of this tool; "" for every tool. */
  tool: string;
  /** How many pauses a page reads (the `page-size` attribute); 50 by default. */
  pageSize: number;
  /** Makes every request; `fetch` by default.  Set it to add an `Authorization: Bearer` header. */
  fetcher: typeof fetch;
  /** Read the first page again, in place of what is shown. */
  refresh(): Promise<void>;
}

/** A thread's decision history, oldest first, and a warning where the record was changed since it was written. */
export declare class StalwartHistory extends StalwartElement {
  /** Where the backend's routes are; "" for the page's own origin. */
  base: string;
  /** The thread whose decisions are shown. */
  thread: string;
  /** Makes every request; `fetch` by default.  Set it to add `Authorization: Bearer` (the thread's owner) or
   * `Stalwart-Operator-Token` (an operator). */
  fetcher: typeof fetch;
  /** Read the thread's decisions again, in place of what is shown. */
  refresh(): Promise<void>;
}

declare global {
  interface HTMLElementTagNameMap {
    'stalwart-chat': StalwartChat;
    'stalwart-confirm': StalwartConfirm;
    'stalwart-decision': StalwartDecision;
    'stalwart-rollback': StalwartRollback;
    'stalwart-trace': StalwartTrace;
    'stalwart-inbox': StalwartInbox;
    'stalwart-history': StalwartHistory;
  }
  interface HTMLElementEventMap {
    'stalwart-decision': StalwartDecisionEvent;
  }
}
