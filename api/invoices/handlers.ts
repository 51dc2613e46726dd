import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { createInvoices } from './invoices';

export type InvoiceOperation = 'listInvoices' | 'createInvoice' | 'getInvoice' | 'updateInvoice' | 'deleteInvoice' | 'postInvoice' | 'cancelInvoice';

/** Sales and purchase invoices. */
export function invoiceHandlers(deps: { companies: CompanyScopes; webhookEvents: WebhookEvents }): HandlersOf<InvoiceOperation> {
  const invoices = createInvoices(deps);
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
  };
}
