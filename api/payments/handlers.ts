import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { createPayments } from './payments';
import { createAging } from './aging';

export type PaymentOperation = 'listPayments' | 'postPayment' | 'getPayment' | 'allocatePayment' | 'cancelPayment' | 'getAgingReport';

/** Payments in and out and their allocations to invoices. */
export function paymentHandlers(deps: { companies: CompanyScopes; webhookEvents: WebhookEvents }): HandlersOf<PaymentOperation> {
  const payments = createPayments(deps);
  const aging = createAging(deps.companies);
  return {
    getAgingReport: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await aging.getAgingReport(principal, params.legalEntityId, { asOf: query.asOf, side: query.side }),
    })),

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
