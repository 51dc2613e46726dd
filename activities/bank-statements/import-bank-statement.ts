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
  readImportFile,
  storeImportLines,
  type ImportProblem,
} from '../../db/repositories/bank-statements/statements';
import { parseBankStatement, type ColumnProfile } from '../../adapters/bank-statements';
import { defaultProposal, lineKeys, summaryOf } from '../../core/bank-statements/lines';
import { ruleHolds, rulesInOrder, settleInvoices, type LineProposal } from '../../core/bank-statements/rules';
import { findRule, listRules, openInvoicesByTin, type CounterpartyInvoices } from '../../db/repositories/bank-statements/rules';
import { AppError } from '../../core/shared/problems';
import type { Actor, Origin } from '../../services/audit/caller-events';
import { postingProblemOf } from '../../services/ledger/posting';
import { type EventRecorder } from '../../services/payments/payments';
import { matchLineIn, proposalMatch } from '../../services/bank-statements/lines';
import { statementDifference, StatementFormatError, type ParsedStatement } from '../../core/bank-statements/statements';
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
function statementProblem(statements: ParsedStatement[], account: { accountNumber: string; currency: string }): ImportProblem | null {
  for (const [i, s] of statements.entries()) {
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
    const difference = statementDifference(s);
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

/**
 * What the company's rules propose for the import's new lines: for each line, the first enabled rule (by
 * priority) whose conditions hold and whose action has something to propose. SETTLE_INVOICES looks at the open
 * invoices of the counterparty the line's TIN names (one counterparty, else none), of the line's kind, dated
 * by the line and not proposed to another line.
 */
async function ruleProposals(tx: Tx, scope: { tenantId: string; legalEntityId: string }, importId: string, currency: string, taken: Set<string>) {
  const proposals: Array<{ lineId: string; proposal: LineProposal }> = [];
  const rules = rulesInOrder((await listRules(tx, scope)).rows);
  if (rules.length === 0) return proposals;
  const lines = await unmatchedLinesOfImport(tx, scope, importId);
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

  async function fail(input: ImportBankStatementInput, problem: ImportProblem, format: ParsedStatement['format'] | null) {
    await withTenant(db, input.tenantId, async (tx) => {
      if (await failImport(tx, scopeOf(input), input.importId, problem, format)) {
        await recordOutcome(tx, input, 'bank-statement.import-failed', `${problem.type}: ${problem.detail}`);
      }
    });
    return { outcome: 'FAILED' as const, problem: problem.type };
  }

  async function storeStatementLines(input: ImportBankStatementInput) {
    return beating(async () => {
      const scope = scopeOf(input);
      // What to read, outside the transaction that stores: parsing a large file takes a while.
      const found = await withTenant(db, input.tenantId, async (tx) => {
        const row = await findImport(tx, scope, { id: input.importId, bankAccountId: input.bankAccountId });
        if (!row || row.status !== 'RUNNING') return null;
        if (row.linesStored) return { stored: true as const };
        const account = (await findBankAccount(tx, scope, input.bankAccountId))!;
        const file = (await readImportFile(tx, scope, input.importId))!;
        return { stored: false as const, account, file, contentType: row.contentType };
      });
      if (!found) return { outcome: 'SETTLED' as const };
      if (found.stored) return { outcome: 'STORED' as const };

      let statements: ParsedStatement[];
      try {
        statements = await parseBankStatement(found.file.content, {
          contentType: found.contentType,
          ...(found.file.profile ? { profile: found.file.profile as unknown as ColumnProfile } : {}),
        });
      } catch (err) {
        if (!(err instanceof StatementFormatError)) throw err;
        return fail(input, { type: 'statement-unreadable', title: 'The file cannot be read as a bank statement', detail: err.message, ...(err.line ? { line: err.line } : {}) }, null);
      }
      if (statements.length === 0) {
        return fail(input, { type: 'statement-unreadable', title: 'The file cannot be read as a bank statement', detail: 'the file holds no statement' }, null);
      }
      const problem = statementProblem(statements, found.account);
      if (problem) return fail(input, problem, statements[0]!.format);

      let lineNo = 0;
      const lines = statements.flatMap((s) => {
        const keys = lineKeys(s);
        return s.lines.map((line, i) => ({ ...line, lineNo: ++lineNo, key: keys[i]! }));
      });
      return withTenant(db, input.tenantId, async (tx) => {
        // Held until commit: a retry of this step waits here and then finds the lines stored.
        const row = await findImport(tx, scope, { id: input.importId }, { lock: true });
        if (!row || row.status !== 'RUNNING') return { outcome: 'SETTLED' as const };
        if (row.linesStored) return { outcome: 'STORED' as const };
        await storeImportLines(tx, scope, {
          importId: input.importId,
          bankAccountId: input.bankAccountId,
          format: statements[0]!.format,
          statementCount: statements.length,
          summary: summaryOf(statements),
          lines,
        });
        return { outcome: 'STORED' as const };
      });
    });
  }

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
        const proposals = await ruleProposals(tx, scope, input.importId, account.currency, taken);
        const byRule = new Set(proposals.map((p) => p.lineId));
        for (const line of await defaultCandidates(tx, scope, { importId: input.importId, currency: account.currency })) {
          if (byRule.has(line.lineId)) continue;
          const proposal = defaultProposal(line, line.candidates.filter((c) => !taken.has(c.invoiceId)));
          if (!proposal) continue;
          for (const a of proposal.allocations) taken.add(a.invoiceId);
          proposals.push({ lineId: line.lineId, proposal });
        }
        await proposeLines(tx, scope, proposals);
        await markImportProposed(tx, scope, input.importId);
        // Without the person who imported, nobody is there to act for: the proposals wait for a person.
        return { autoConfirm: row.importedBy ? proposals.filter((p) => p.proposal.autoConfirm).length : 0 };
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
