import type { Statement } from '../../connection';
import type { CompanyScope } from '../organisation/companies';
import type { InvoiceKind } from '../../../core/invoices/invoices';
import type { VatAccountTurnover, VatRegisterGroup } from '../../../core/invoices/vat-register';

// The monthly VAT register (getVatRegister): a side's posted invoices dated in the month and those cancelled
// in it, each as its posted lines' UZS sums per VAT rate, in the register's order, and the VAT account's
// turnover of the month from the entries invoices posted. One statement, so the register and the turnover
// are read from one snapshot and always tie, however postings run beside it: the turnover is the first
// relation of the join, so a month without invoices still has its one row (with the group's columns null).
// The invoices of the month come through invoices_vat_register_idx, the cancellations through
// invoices_cancellation_idx, the lines through invoice_lines_vat_idx (migration 2026.11.26T15.30.00.vat-register),
// each a range or a probe per invoice, never the company's whole history; the VAT account's lines through
// journal_lines_account_idx, their entries' sources through journal_entries_invoice_date_idx. Amounts come back
// as NUMERIC text, the rate too.

export interface VatRegisterRowData {
  turnover_debit: string;
  turnover_credit: string;
  invoice_id: string | null;
  cancellation: boolean | null;
  date: string | null;
  number: string | null;
  counterparty_id: string | null;
  counterparty_name: string | null;
  counterparty_tin: string | null;
  vat_registration_code: string | null;
  currency: string | null;
  rate: string | null;
  net: string | null;
  vat: string | null;
}

export function vatRegisterStatement(scope: CompanyScope, query: { kind: InvoiceKind; from: string; to: string; vatAccount: string }): Statement {
  return {
    sql: `WITH turnover AS (
            SELECT coalesce(sum(l.debit), 0) AS debit, coalesce(sum(l.credit), 0) AS credit
              FROM journal_lines l
              JOIN journal_entries e ON e.tenant_id = l.tenant_id AND e.id = l.entry_id AND e.entry_date = l.entry_date
             WHERE l.tenant_id = :tenantId AND l.legal_entity_id = :legalEntityId AND l.account_code = :vatAccount AND l.entry_date BETWEEN :from AND :to
               AND e.legal_entity_id = :legalEntityId AND e.source_type = 'INVOICE' AND e.entry_date BETWEEN :from AND :to
          ), documents AS (
            SELECT i.id, false AS cancellation, i.invoice_date AS date, i.number, i.counterparty_id, i.currency
              FROM invoices i
             WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.kind = :kind AND i.status <> 'DRAFT'
               AND i.invoice_date BETWEEN :from AND :to
            UNION ALL
            SELECT i.id, true, i.cancellation_date, i.number, i.counterparty_id, i.currency
              FROM invoices i
             WHERE i.tenant_id = :tenantId AND i.legal_entity_id = :legalEntityId AND i.kind = :kind AND i.status = 'CANCELLED'
               AND i.cancellation_date BETWEEN :from AND :to
          ), groups AS (
            SELECT d.id, d.cancellation, d.date, d.number, d.counterparty_id, d.currency, l.vat_rate, sum(l.net_uzs) AS net, sum(l.vat_uzs) AS vat
              FROM documents d
              JOIN invoice_lines l ON l.tenant_id = :tenantId AND l.invoice_id = d.id
             GROUP BY d.id, d.cancellation, d.date, d.number, d.counterparty_id, d.currency, l.vat_rate
          )
          SELECT t.debit AS turnover_debit, t.credit AS turnover_credit, g.id AS invoice_id, g.cancellation, to_char(g.date, 'YYYY-MM-DD') AS date,
                 g.number, g.counterparty_id, c.name AS counterparty_name, coalesce(c.tin, c.pinfl) AS counterparty_tin, c.vat_registration_code,
                 g.currency, g.vat_rate AS rate, g.net, g.vat
            FROM turnover t
            LEFT JOIN (groups g JOIN counterparties c ON c.tenant_id = :tenantId AND c.id = g.counterparty_id) ON true
           ORDER BY g.date, g.number COLLATE "C", g.id, g.cancellation, g.vat_rate NULLS LAST`,
    replacements: { ...scope, ...query },
  };
}

/** The statement's rows as the register's groups, in its order, and the turnover (on every row: the first's). */
export function vatRegisterDataOf(rows: Record<string, unknown>[]): { groups: VatRegisterGroup[]; turnover: VatAccountTurnover } {
  const data = rows as unknown as VatRegisterRowData[];
  const first = data[0]!;
  const groups = first.invoice_id === null
    ? []
    : data.map((r): VatRegisterGroup => ({
        invoiceId: r.invoice_id!,
        kind: r.cancellation ? 'CANCELLATION' : 'ORIGINAL',
        date: r.date!,
        number: r.number!,
        counterpartyId: r.counterparty_id!,
        counterpartyName: r.counterparty_name!,
        counterpartyTin: r.counterparty_tin,
        vatRegistrationCode: r.vat_registration_code,
        currency: r.currency!,
        rate: r.rate,
        net: r.net!,
        vat: r.vat!,
      }));
  return { groups, turnover: { debit: first.turnover_debit, credit: first.turnover_credit } };
}
