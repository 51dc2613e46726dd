import { Router } from 'express';
import type { createLedgerService } from '../services/ledger';
import type { createPeriodCloseService } from '../services/period-closes';
import { locals } from '../middleware/request-context';
import { optionalString, pageAndSize } from './query-params';

const BASE = '/api/v1/ledger/:legalEntityId';

export function ledgerRoutes(deps: { ledger: ReturnType<typeof createLedgerService>; closes: ReturnType<typeof createPeriodCloseService> }): Router {
  const router = Router();
  const { ledger, closes } = deps;

  router.post(`${BASE}/entries`, async (req, res) => {
    const { entry } = await ledger.post(locals(res).principal!, req.params.legalEntityId, req.body, locals(res).ctx);
    res.status(201).location(`/api/v1/ledger/${req.params.legalEntityId}/entries/${entry.id}`).json(entry);
  });

  router.get(`${BASE}/entries`, async (req, res) => {
    const filter = {
      dateFrom: optionalString(req, 'dateFrom'),
      dateTo: optionalString(req, 'dateTo'),
      accountCode: optionalString(req, 'accountCode'),
      ...pageAndSize(req),
    };
    res.json(await ledger.list(locals(res).principal!, req.params.legalEntityId, filter));
  });

  router.get(`${BASE}/entries/:entryId`, async (req, res) => {
    res.json(await ledger.get(locals(res).principal!, req.params.legalEntityId, req.params.entryId));
  });

  router.post(`${BASE}/entries/:entryId/reversal`, async (req, res) => {
    const { entry } = await ledger.reverse(locals(res).principal!, req.params.legalEntityId, req.params.entryId, req.body, locals(res).ctx);
    res.status(201).json(entry);
  });

  router.get(`${BASE}/trial-balance`, async (req, res) => {
    res.json(await closes.trialBalance(locals(res).principal!, req.params.legalEntityId, String(req.query.asOf)));
  });

  router.get(`${BASE}/periods`, async (req, res) => {
    res.json(await closes.list(locals(res).principal!, req.params.legalEntityId));
  });

  router.post(`${BASE}/periods/close`, async (req, res) => {
    res.status(202).json(await closes.requestClose(locals(res).principal!, req.params.legalEntityId, req.body, locals(res).ctx));
  });

  router.get(`${BASE}/periods/:closeId`, async (req, res) => {
    res.json(await closes.get(locals(res).principal!, req.params.legalEntityId, req.params.closeId));
  });

  return router;
}
