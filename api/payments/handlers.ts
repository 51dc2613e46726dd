import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import type { XlsxThreads } from '../http/xlsx-threads';
import { createPayments } from './payments';
import { createAging } from './aging';

export type PaymentOperation = 'listPayments' | 'postPayment' | 'getPayment' | 'allocatePayment' | 'cancelPayment' | 'getAgingReport';

/** Payments in and out, their allocations to invoices, and the aging of what is open. */
export function paymentHandlers(deps: {
  companies: CompanyScopes;
  webhookEvents: WebhookEvents;
  /** The threads that build XLSX exports (the aging report's). */
  xlsxThreads: XlsxThreads;
}): HandlersOf<PaymentOperation> {
  const payments = createPayments(deps);
  const aging = createAging(deps.companies, deps.xlsxThreads);
  return {
    getAgingReport: memberOperation(async ({ principal, params, query, mediaType }) => {
      const body = await aging.getAgingReport(principal, params.legalEntityId, { asOf: query.asOf, side: query.side });
      return mediaType === 'application/json' ? { status: 200, body } : aging.agingExport(mediaType, params.legalEntityId, body);
    }),

    listPayments: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await payments.listPayments(principal, params.legalEntityId, {
        direction: query.direction,
        status: query.status,
        counterpartyId: query.counterpartyId,
        dateFrom: query.dateFrom,
        dateTo: query.dateTo,
        ...pageQuery(query),
      }),
    })),

    postPayment: memberOperation(async ({ principal, params, body, ctx }) => {
      const { payment, created } = await payments.postPayment(principal, params.legalEntityId, body, ctx);
      return { status: created ? 201 : 200, body: payment };
    }),

    getPayment: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await payments.getPayment(principal, params.legalEntityId, params.paymentId),
    })),

    allocatePayment: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await payments.allocatePayment(principal, params.legalEntityId, params.paymentId, body, ctx),
    })),

    cancelPayment: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await payments.cancelPayment(principal, params.legalEntityId, params.paymentId, body, ctx),
    })),
  };
}
