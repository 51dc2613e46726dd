import { Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { withTenant, type Tx } from '../../db/connection';
import { recordAuditEvent } from '../../db/repositories/audit/events';
import { recordWebhookEvent, type RecordOptions } from '../../db/repositories/webhooks/events';
import { findBankAccount } from '../../db/repositories/bank-accounts/bank-accounts';
import {
  autoConfirmLineIds,
  completeImport,
  declineAutoConfirm,
  defaultCandidates,
  failImport,
  findImport,
  findLine,
  markImportProposed,
  proposeLines,
  proposedInvoiceIds,
  unmatchedLinesOfImport,
  findImportProfile,
  importFileChunks,
  insertImportLines,
  markLinesStored,
  type ImportProblem,
  type LinePage,
  type LineToStore,
} from '../../db/repositories/bank-statements/statements';
import { readBankStatement, type ColumnProfile } from '../../adapters/bank-statements';
import { defaultProposal, StatementTally, summaryOf } from '../../core/bank-statements/lines';
import { ruleHolds, rulesInOrder, settleInvoices, type LineProposal } from '../../core/bank-statements/rules';
import { findRule, listRules, openInvoicesByTin, type CounterpartyInvoices } from '../../db/repositories/bank-statements/rules';
import { AppError } from '../../core/shared/problems';
import type { Actor, Origin } from '../../services/audit/caller-events';
import { postingProblemOf } from '../../services/ledger/posting';
import { type EventRecorder } from '../../services/payments/payments';
import { matchLineIn, proposalMatch } from '../../services/bank-statements/lines';
import { StatementFormatError, type StatementFormat, type StatementHead } from '../../core/bank-statements/statements';
import type { AuditAction } from '../../core/audit/audit-actions';
import type { ImportBankStatementActivities, ImportBankStatementInput } from '../../contracts/bank-statements';

export interface ImportBankStatementDeps {
  db: Sequelize;
}

const scopeOf = (input: ImportBankStatementInput) => ({ tenantId: input.tenantId, legalEntityId: input.legalEntityId });

/** The import's outcome in the audit trail: written by the workflow, so a system event. */
function recordOutcome(tx: Tx, input: ImportBankStatementInput, action: AuditAction, details: string) {
  return recordAuditEvent(tx, { tenantId: input.tenantId }, {
    action,
    actorMembershipId: null,
    actorDisplayName: 'Bank statement import',
    systemActor: true,
    correlationId: input.correlationId,
    subjectType: 'BANK_STATEMENT_IMPORT',
    subjectId: input.importId,
    ipAddress: null,
    details: details.slice(0, 500),
  });
}

/** Why a statement read from the file cannot go into this bank account, or null when it can. */
function statementProblem(statements: Array<{ head: StatementHead; tally: StatementTally }>, account: { accountNumber: string; currency: string }): ImportProblem | null {
  for (const [i, { head: s, tally }] of statements.entries()) {
    const which = statements.length > 1 ? `statement ${i + 1} of the file` : 'the statement';
    if (s.accountNumber !== account.accountNumber) {
      return {
        type: 'statement-account-mismatch',
        title: 'The statement is of another account',
        detail: `${which} is of account ${s.accountNumber}, not of this bank account (${account.accountNumber})`,
      };
    }
    if (s.currency && s.currency !== account.currency) {
      return { type: 'statement-currency-mismatch', title: 'The statement is in another currency', detail: `${which} is in ${s.currency}, the bank account in ${account.currency}` };
    }
    const difference = tally.difference(s);
    if (difference !== '0.00') {
      return {
        type: 'statement-unbalanced',
        title: 'The statement does not add up',
        detail: `${which}: the opening balance ${s.openingBalance} plus its lines is not its closing balance ${s.closingBalance} (difference ${difference})`,
        difference,
      };
    }
  }
  return null;
}

/** A file read to its end that cannot be stored: what was stored of it is rolled back, and the import fails with the problem. */
class Refused extends Error {
  constructor(
    readonly problem: ImportProblem,
    readonly format: StatementFormat | null,
  ) {
    super(problem.detail);
  }
}

/** How many lines of an import are stored, or proposed for, at a time: what the import holds of a file is one page. */
const LINE_PAGE = 2000;

/**
 * What the company's rules propose for the import's new lines: for each line, the first enabled rule (by
 * priority) whose conditions hold and whose action has something to propose. SETTLE_INVOICES looks at the open
 * invoices of the counterparty the line's TIN names (one counterparty, else none), of the line's kind, dated
 * by the line and not proposed to another line.
 */
async function ruleProposals(
  tx: Tx,
  scope: { tenantId: string; legalEntityId: string },
  query: { importId: string; currency: string; page: LinePage },
  rules: ReturnType<typeof rulesInOrder>,
  taken: Set<string>,
) {
  const proposals: Array<{ lineId: string; proposal: LineProposal }> = [];
  if (rules.length === 0) return proposals;
  const { importId, currency, page } = query;
  const lines = await unmatchedLinesOfImport(tx, scope, importId, page);
  const tins = [...new Set(lines.flatMap((l) => (l.counterpartyTin ? [l.counterpartyTin] : [])))];
  const counterparties = new Map<string, CounterpartyInvoices[]>();
  for (const c of await openInvoicesByTin(tx, scope, { tins, currency })) counterparties.set(c.tin, [...(counterparties.get(c.tin) ?? []), c]);
  const patterns = new Map();
  for (const line of lines) {
    for (const rule of rules) {
      if (!ruleHolds(rule, line, patterns)) continue;
      const reason = `rule "${rule.name}"`;
      const auto = rule.autoConfirm ? { autoConfirm: true } : {};
      if (rule.action.type === 'POST_TO_ACCOUNT') {
        proposals.push({ lineId: line.id, proposal: { type: 'POST_TO_ACCOUNT', accountCode: rule.action.accountCode, ruleId: rule.id, reason, ...auto } });
        break;
      }
      const named = line.counterpartyTin ? (counterparties.get(line.counterpartyTin) ?? []) : [];
      if (named.length !== 1) continue;
      const { counterpartyId, invoices } = named[0]!;
      const kind = line.direction === 'IN' ? 'SALES' : 'PURCHASE';
      const open = invoices.filter((i) => i.kind === kind && i.invoiceDate <= line.date && !taken.has(i.id));
      const proposal = settleInvoices(line, counterpartyId, open, currency, reason);
      if (!proposal) continue;
      for (const a of proposal.allocations) taken.add(a.invoiceId);
      proposals.push({ lineId: line.id, proposal: { ...proposal, ruleId: rule.id, ...auto } });
      break;
    }
  }
  return proposals;
}

/** The activities of importBankStatementWorkflow (started by importBankStatement). */
export function createImportBankStatementActivities({ db }: ImportBankStatementDeps): ImportBankStatementActivities {
  // Webhook events of what the activities post, started by the relay once committed (an activity has no workflow client).
  const relayOptions = (): RecordOptions => ({ taskQueue: Context.current().info.taskQueue, dispatch: 'relay' });
  const relayedEvents: EventRecorder = { record: (tx, tenantId, event) => recordWebhookEvent(tx, { tenantId }, event, relayOptions()) };

  /** Heartbeats while `work` runs, so a killed worker is noticed in seconds and a long step is not. */
  async function beating<T>(work: () => Promise<T>): Promise<T> {
    const beat = setInterval(() => Context.current().heartbeat(), 2000);
    try {
      return await work();
    } finally {
      clearInterval(beat);
    }
  }

  async function fail(input: ImportBankStatementInput, problem: ImportProblem, format: StatementFormat | null) {
    await withTenant(db, input.tenantId, async (tx) => {
      if (await failImport(tx, scopeOf(input), input.importId, problem, format)) {
        await recordOutcome(tx, input, 'bank-statement.import-failed', `${problem.type}: ${problem.detail}`);
      }
    });
    return { outcome: 'FAILED' as const, problem: problem.type };
  }

  /**
   * Reads the file and stores its lines as it reads them, a page at a time, in one transaction: a file that
   * turns out unreadable, of another account or unbalanced at its end is rolled back whole, nothing stored.
   */
  async function storeStatementLines(input: ImportBankStatementInput) {
    return beating(async () => {
      const scope = scopeOf(input);
      try {
        return await withTenant(db, input.tenantId, async (tx) => {
          // Held until commit: a retry of this step waits here and then finds the lines stored.
          const row = await findImport(tx, scope, { id: input.importId, bankAccountId: input.bankAccountId }, { lock: true });
          if (!row || row.status !== 'RUNNING') return { outcome: 'SETTLED' as const };
          if (row.linesStored) return { outcome: 'STORED' as const };
          const account = (await findBankAccount(tx, scope, input.bankAccountId))!;
          const profile = await findImportProfile(tx, scope, input.importId);
          const reader = readBankStatement(() => importFileChunks(tx, scope, input.importId), {
            size: row.byteSize,
            contentType: row.contentType,
            ...(profile ? { profile: profile as unknown as ColumnProfile } : {}),
          });
          const target = { importId: input.importId, bankAccountId: input.bankAccountId };
          const tallies: StatementTally[] = [];
          let page: LineToStore[] = [];
          let read = 0;
          let stored = 0;
          let heads: StatementHead[];
          for (;;) {
            const next = await reader.next();
            if (next.done) {
              heads = next.value;
              break;
            }
            const { statement, line } = next.value;
            const tally = (tallies[statement] ??= new StatementTally());
            read += 1;
            page.push({ ...line, lineNo: read, key: tally.add(line) });
            if (page.length >= LINE_PAGE) {
              stored += await insertImportLines(tx, scope, target, page);
              page = [];
            }
          }
          if (heads.length === 0) throw new Refused({ type: 'statement-unreadable', title: 'The file cannot be read as a bank statement', detail: 'the file holds no statement' }, null);
          const statements = heads.map((head, i) => ({ head, tally: tallies[i] ?? new StatementTally() }));
          const problem = statementProblem(statements, account);
          if (problem) throw new Refused(problem, heads[0]!.format);
          stored += await insertImportLines(tx, scope, target, page);
          await markLinesStored(tx, scope, {
            importId: input.importId,
            format: heads[0]!.format,
            statementCount: heads.length,
            summary: summaryOf(statements),
            counts: { read, new: stored, duplicate: read - stored },
          });
          return { outcome: 'STORED' as const };
        });
      } catch (err) {
        if (err instanceof Refused) return fail(input, err.problem, err.format);
        if (!(err instanceof StatementFormatError)) throw err;
        return fail(input, { type: 'statement-unreadable', title: 'The file cannot be read as a bank statement', detail: err.message, ...(err.line ? { line: err.line } : {}) }, null);
      }
    });
  }

  /**
   * Proposals for the import's lines, a page of lines at a time in one transaction: first what the rules
   * propose for every line, then the default proposal for the lines no rule took (a rule goes before the
   * default even for an invoice an earlier line could take by default).
   */
  async function proposeStatementLines(input: ImportBankStatementInput) {
    return beating(() =>
      withTenant(db, input.tenantId, async (tx) => {
        const scope = scopeOf(input);
        const row = await findImport(tx, scope, { id: input.importId }, { lock: true });
        if (!row || row.status !== 'RUNNING' || !row.linesStored) return null;
        if (row.linesProposed) return { autoConfirm: (await autoConfirmLineIds(tx, scope, input.importId)).length };
        const account = (await findBankAccount(tx, scope, input.bankAccountId))!;
        // In the statement's order: of two lines that could pay one invoice, the earlier is proposed it; an
        // invoice proposed to a line of an earlier import, not yet confirmed, is that line's.
        const taken = await proposedInvoiceIds(tx, scope);
        const rules = rulesInOrder((await listRules(tx, scope)).rows);
        const pages = Array.from({ length: Math.ceil(row.counts.read / LINE_PAGE) }, (_, i) => ({ from: i * LINE_PAGE, size: LINE_PAGE }));
        let autoConfirm = 0;
        for (const page of pages) {
          const proposals = await ruleProposals(tx, scope, { importId: input.importId, currency: account.currency, page }, rules, taken);
          await proposeLines(tx, scope, proposals);
          autoConfirm += proposals.filter((p) => p.proposal.autoConfirm).length;
        }
        for (const page of pages) {
          const proposals: Array<{ lineId: string; proposal: LineProposal }> = [];
          // The lines a rule proposed for are PROPOSED now: only those left UNMATCHED come back.
          for (const line of await defaultCandidates(tx, scope, { importId: input.importId, currency: account.currency, page })) {
            const proposal = defaultProposal(line, line.candidates.filter((c) => !taken.has(c.invoiceId)));
            if (!proposal) continue;
            for (const a of proposal.allocations) taken.add(a.invoiceId);
            proposals.push({ lineId: line.lineId, proposal });
          }
          await proposeLines(tx, scope, proposals);
        }
        await markImportProposed(tx, scope, input.importId);
        // Without the person who imported, nobody is there to act for: the proposals wait for a person.
        return { autoConfirm: row.importedBy ? autoConfirm : 0 };
      }),
    );
  }

  /** Posts one line's proposal in a commit of its own; the problem that refused it, or null when it is posted (or was already). */
  async function confirmLine(input: ImportBankStatementInput, actor: Actor, lineId: string): Promise<AppError | null> {
    const scope = scopeOf(input);
    const origin: Origin = { correlationId: input.correlationId, ipAddress: null };
    try {
      await withTenant(db, input.tenantId, async (tx) => {
        const line = await findLine(tx, scope, { bankAccountId: input.bankAccountId, id: lineId }, { lock: true });
        // Matched by a person meanwhile, or by this step before a retry: nothing left to do.
        if (!line || line.status !== 'PROPOSED' || !line.proposal?.autoConfirm) return;
        const account = (await findBankAccount(tx, scope, input.bankAccountId))!;
        const rule = line.proposal.ruleId ? await findRule(tx, scope, line.proposal.ruleId) : null;
        await matchLineIn(tx, actor, scope, origin, relayedEvents, {
          line,
          account,
          match: proposalMatch(line.proposal),
          by: `confirmed by rule "${rule?.name ?? line.proposal.ruleId}" during import ${input.importId}`,
        });
      });
      return null;
    } catch (err) {
      const problem = err instanceof AppError ? err : postingProblemOf(err);
      if (!problem) throw err;
      return problem;
    }
  }

  async function confirmStatementLines(input: ImportBankStatementInput) {
    return beating(async () => {
      const scope = scopeOf(input);
      const found = await withTenant(db, input.tenantId, async (tx) => {
        const row = await findImport(tx, scope, { id: input.importId });
        if (!row || row.status !== 'RUNNING' || !row.linesProposed || !row.importedBy) return null;
        return { importedBy: row.importedBy, lineIds: await autoConfirmLineIds(tx, scope, input.importId) };
      });
      let confirmed = 0;
      let declined = 0;
      if (!found) return { confirmed, declined };
      const actor: Actor = { tenantId: input.tenantId, membershipId: found.importedBy };
      for (const lineId of found.lineIds) {
        const problem = await confirmLine(input, actor, lineId);
        if (!problem) {
          confirmed += 1;
          continue;
        }
        declined += 1;
        await withTenant(db, input.tenantId, (tx) => declineAutoConfirm(tx, scope, lineId, `${problem.type}: ${problem.message}`));
      }
      return { confirmed, declined };
    });
  }

  async function completeStatementImport(input: ImportBankStatementInput) {
    return beating(() =>
      withTenant(db, input.tenantId, async (tx) => {
        const scope = scopeOf(input);
        const row = await findImport(tx, scope, { id: input.importId }, { lock: true });
        if (!row || row.status !== 'RUNNING' || !row.linesProposed) return null;
        const account = (await findBankAccount(tx, scope, input.bankAccountId))!;
        const done = (await completeImport(tx, scope, input.importId))!;
        const { counts } = done;
        await recordOutcome(
          tx,
          input,
          'bank-statement.imported',
          `${done.format} into ${account.accountNumber}: ${counts.read} read, ${counts.new} new, ${counts.duplicate} duplicate, ${counts.matched} matched by rules, ${counts.proposed} proposed, ${counts.unmatched} unmatched`,
        );
        // Started by the relay once committed (an activity has no workflow client).
        await recordWebhookEvent(
          tx,
          { tenantId: input.tenantId },
          {
            type: 'bank-statement.imported',
            data: {
              importId: input.importId,
              legalEntityId: input.legalEntityId,
              bankAccountId: input.bankAccountId,
              periodFrom: done.periodFrom,
              periodTo: done.periodTo,
              counts,
            },
          },
          relayOptions(),
        );
        return counts;
      }),
    );
  }

  return { storeStatementLines, proposeStatementLines, confirmStatementLines, completeStatementImport };
}
