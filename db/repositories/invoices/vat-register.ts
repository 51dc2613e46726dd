import { selectBatch, type Statement, type Tx } from '../../connection';
import type { CompanyScope } from '../organisation/companies';
import type { InvoiceKind } from '../../../core/invoices/invoices';
import type { VatAccountTurnover, VatRateSum, VatRegisterGroup } from '../../../core/invoices/vat-register';

// The monthly VAT register (getVatRegister): a side's posted invoices dated in the month and those cancelled
// in it (as their cancellation), each as its posted lines' UZS sums per VAT rate ("groups"), in the
// register's order (date, number in character code order, invoice, original before cancellation, rate with
// exempt last). Two reads:
//
// - A page (the JSON answer): one statement gives the page's groups, the number of groups, the month's sums
//   per rate and kind, and the VAT account's turnover of the month from the entries invoices posted, all from
//   one snapshot, so the totals and `ledgerVat` always tie, however postings run beside it.
// - A batch (the exports): the groups of the next documents after a position (keyset, never an offset), a
//   transaction each, so a long download holds no transaction and no more than a batch.
//
// What either reads is bounded by the month, never the company's history: its invoices through
// invoices_vat_register_idx, its cancellations through invoices_cancellation_idx, each with its lines' sums per
// rate as posting wrote them on it (`vat_groups`, migration 2026.11.29T00.00.00.invoice-vat-groups: no probe
// into its lines), the VAT account's turnover from the day totals of the lines invoices posted
// (journal_day_totals, migration 2026.11.28T22.30.00.journal-day-totals). Amounts and rates are NUMERIC text
// (never a JSON number, which would be a float).

export interface VatRegisterQuery {
  kind: InvoiceKind;
  from: string;
  to: string;
}

/** Where a batch starts: after this document of the register's order. */
export interface VatRegisterPosition {
  date: string;
  number: string;
  invoiceId: string;
  cancellation: boolean;
}

/**
 * A page's statement runs without JIT compilation (its estimates for a month of invoices reach jit_above_cost,
 * and compiling took longer than the query) and holds the month's groups in memory (about 8 MB for 20,000
 * invoices; SET LOCAL ends with the transaction).
 */
const PAGE_PLAN: Statement[] = [{ sql: "SET LOCAL work_mem = '16MB'" }, { sql: 'SET LOCAL jit = off' }];

const ORDER = 'g.date, g.number COLLATE "C", g.id, g.kind = \'CANCELLATION\', g.vat_rate NULLS LAST';

/** Each document's posted lines summed per rate (its `vat_groups`, written as it was posted), with the document's columns. */
const GROUPS = `
  SELECT d.id, d.kind, d.date, d.number, d.counterparty_id, d.currency,
         CAST(s.value ->> 'rate' AS numeric) AS vat_rate, CAST(s.value ->> 'net' AS numeric) AS net, CAST(s.value ->> 'vat' AS numeric) AS vat
    FROM documents d
    CROSS JOIN LATERAL jsonb_array_elements(d.vat_groups) s`;

/** A group as the register's JSON has it (core/invoices/vat-register.ts VatRegisterGroup), from `g` and its counterparty `c`. */
const GROUP_JSON = `json_build_object('invoiceId', g.id, 'kind', g.kind, 'date', to_char(g.date, 'YYYY-MM-DD'), 'number', g.number,
  'counterpartyId', g.counterparty_id, 'counterpartyName', c.name, 'counterpartyTin', coalesce(c.tin, c.pinfl),
  'vatRegistrationCode', c.vat_registration_code, 'currency', g.currency, 'rate', g.vat_rate::text, 'net', g.net::text, 'vat', g.vat::text)`;

/** The side's invoices posted (or cancelled since) and dated in the month, and those cancelled in it; `position` keeps those after it. */
function documents(position: string | null, limit: string | null): string {
  const branch = (kind: 'ORIGINAL' | 'CANCELLATION') => {
    const [date, status, cancellation] = kind === 'ORIGINAL' ? ['i.invoice_date', "i.status <> 'DRAFT'", 'false'] : ['i.cancellation_date', "i.status = 'CANCELLED'", 'true'];
    const after = position === null ? '' : `AND ${date} >= :afterDate AND (${date}, i.number COLLATE "C", i.id, ${cancellation}) > ${position}`;
    return `SELECT i.id, '${kind}' AS kind, ${date} AS date, i.number, i.counterparty_id, i.currency, i.vat_groups
              FROM invoices i
             WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.kind = :kind AND ${status}
               AND ${date} BETWEEN :from AND :to ${after}
             ${limit === null ? '' : `ORDER BY ${date}, i.number COLLATE "C", i.id LIMIT ${limit}`}`;
  };
  if (limit === null) return `${branch('ORIGINAL')} UNION ALL ${branch('CANCELLATION')}`;
  return `SELECT * FROM ((${branch('ORIGINAL')}) UNION ALL (${branch('CANCELLATION')})) d
           ORDER BY d.date, d.number COLLATE "C", d.id, d.kind = 'CANCELLATION' LIMIT ${limit}`;
}

interface PageRow {
  turnover: VatAccountTurnover;
  total: number;
  sums: VatRateSum[];
  groups: VatRegisterGroup[];
}

/** The statements of a page, in order: its plan, then the one statement (see vatRegisterPageOf). */
export function vatRegisterPageStatements(
  scope: CompanyScope,
  query: VatRegisterQuery & { vatAccount: string; offset: number; limit: number },
): Statement[] {
  return [
    ...PAGE_PLAN,
    {
      sql: `WITH turnover AS (
              SELECT coalesce(sum(debit), 0)::numeric(20, 2) AS debit, coalesce(sum(credit), 0)::numeric(20, 2) AS credit
                FROM journal_day_totals
               WHERE tenant_id = :tenantId AND legal_entity_id = :legalEntityId AND entry_date BETWEEN :from AND :to
                 AND account_code = :vatAccount AND source_type = 'INVOICE'
            ), documents AS (${documents(null, null)}
            ), groups AS (${GROUPS})
            SELECT json_build_object('debit', t.debit::text, 'credit', t.credit::text) AS turnover,
                   (SELECT count(*) FROM groups)::int AS total,
                   (SELECT coalesce(json_agg(json_build_object('rate', r.vat_rate::text, 'kind', r.kind, 'net', r.net::text, 'vat', r.vat::text)), '[]')
                      FROM (SELECT vat_rate, kind, sum(net) AS net, sum(vat) AS vat FROM groups GROUP BY vat_rate, kind) r) AS sums,
                   (SELECT coalesce(json_agg(${GROUP_JSON} ORDER BY ${ORDER}), '[]')
                      FROM (SELECT * FROM groups g ORDER BY ${ORDER} OFFSET :offset LIMIT :limit) g
                      JOIN counterparties c ON c.tenant_id = :tenantId AND c.id = g.counterparty_id) AS groups
              FROM turnover t`,
      replacements: { ...scope, ...query },
    },
  ];
}

/** A page's statements' results (as vatRegisterPageStatements orders them): the page's groups, the month's. */
export function vatRegisterPageOf(results: Record<string, unknown>[][]): PageRow {
  return results[PAGE_PLAN.length]![0] as unknown as PageRow;
}

/** The groups of the first `limit` documents after `after` (all of the month's from its start when null), in the register's order. */
export async function vatRegisterBatch(
  tx: Tx,
  scope: CompanyScope,
  query: VatRegisterQuery & { after: VatRegisterPosition | null; limit: number },
): Promise<VatRegisterGroup[]> {
  const { after, ...rest } = query;
  const position = after === null ? null : '(CAST(:afterDate AS date), CAST(:afterNumber AS text), CAST(:afterId AS uuid), CAST(:afterCancellation AS boolean))';
  const [row] = await selectBatch<{ groups: VatRegisterGroup[] }>(tx, [
    { sql: 'SET LOCAL jit = off' },
    {
      sql: `WITH documents AS (${documents(position, ':limit')}), groups AS (${GROUPS})
            SELECT coalesce(json_agg(${GROUP_JSON} ORDER BY ${ORDER}), '[]') AS groups
              FROM groups g
              JOIN counterparties c ON c.tenant_id = :tenantId AND c.id = g.counterparty_id`,
      replacements: {
        ...scope,
        ...rest,
        ...(after === null ? {} : { afterDate: after.date, afterNumber: after.number, afterId: after.invoiceId, afterCancellation: after.cancellation }),
      },
    },
  ]);
  return row!.groups;
}
