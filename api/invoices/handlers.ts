import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import type { XlsxThreads } from '../http/xlsx-threads';
import type { PostingGroups } from '../ledger/posting-groups';
import { createInvoices } from './invoices';
import { createVatRegister } from './vat-register';

export type InvoiceOperation = 'listInvoices' | 'createInvoice' | 'getInvoice' | 'updateInvoice' | 'deleteInvoice' | 'postInvoice' | 'cancelInvoice' | 'getVatRegister';

/** Sales and purchase invoices, and the monthly VAT register. */
export function invoiceHandlers(deps: {
  companies: CompanyScopes;
  webhookEvents: WebhookEvents;
  /** The threads that build XLSX exports (the VAT register's). */
  xlsxThreads: XlsxThreads;
  /** The companies' group commits of postings (an invoice's posting goes through them). */
  postingGroups: PostingGroups;
}): HandlersOf<InvoiceOperation> {
  const invoices = createInvoices(deps);
  const vatRegister = createVatRegister(deps.companies, deps.xlsxThreads);
  return {
    listInvoices: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await invoices.listInvoices(principal, params.legalEntityId, {
        kind: query.kind,
        status: query.status,
        counterpartyId: query.counterpartyId,
        dateFrom: query.dateFrom,
        dateTo: query.dateTo,
        q: query.q ?? '',
        ...pageQuery(query),
      }),
    })),

    createInvoice: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: await invoices.createInvoice(principal, params.legalEntityId, body, ctx),
    })),

    getInvoice: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await invoices.getInvoice(principal, params.legalEntityId, params.invoiceId),
    })),

    updateInvoice: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await invoices.updateInvoice(principal, params.legalEntityId, params.invoiceId, body, ctx),
    })),

    deleteInvoice: memberOperation(async ({ principal, params, ctx }) => {
      await invoices.deleteInvoice(principal, params.legalEntityId, params.invoiceId, ctx);
      return { status: 204 };
    }),

    postInvoice: memberOperation(async ({ principal, params, ctx }) => ({
      status: 200,
      body: await invoices.postInvoice(principal, params.legalEntityId, params.invoiceId, ctx),
    })),

    cancelInvoice: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await invoices.cancelInvoice(principal, params.legalEntityId, params.invoiceId, body, ctx),
    })),

    getVatRegister: memberOperation(async ({ principal, params, query, mediaType }) => {
      const register = { month: query.month, side: query.side };
      // An export has every row of the month: page and size do not apply.
      if (mediaType !== 'application/json') return vatRegister.vatRegisterExport(principal, params.legalEntityId, register, mediaType);
      return { status: 200, body: await vatRegister.getVatRegister(principal, params.legalEntityId, { ...register, ...pageQuery(query) }) };
    }),
  };
}
