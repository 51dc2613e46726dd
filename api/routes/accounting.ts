import { Router } from 'express';
import type { createChartOfAccountsService } from '../services/chart-of-accounts';
import type { createSubaccountService } from '../services/subaccounts';
import { ACCOUNTING_OPTIONS, type createAccountingSettingsService } from '../services/accounting-settings';
import type { AccountType } from '../../db/seeds/nas21-chart-of-accounts';
import { locals } from '../middleware/request-context';
import { rawBodyOf } from '../middleware/raw-body';
import { topLevelNumberLiterals } from '../../core/decimal-literals';
import { optionalString, pageAndSize } from './query-params';

const BASE = '/api/v1/accounting-settings/:legalEntityId';

export function accountingRoutes(deps: {
  accounts: ReturnType<typeof createChartOfAccountsService>;
  subaccounts: ReturnType<typeof createSubaccountService>;
  settings: ReturnType<typeof createAccountingSettingsService>;
}): Router {
  const router = Router();

  router.get('/api/v1/accounting-options', (_req, res) => {
    res.json(ACCOUNTING_OPTIONS);
  });

  router.get(BASE, async (req, res) => {
    res.json(await deps.settings.get(locals(res).principal!, req.params.legalEntityId));
  });

  router.put(BASE, async (req, res) => {
    const vatRateLiteral = topLevelNumberLiterals(rawBodyOf(req)).get('vatRate') ?? String(req.body.vatRate);
    const input = { ...req.body, vatRateLiteral };
    res.json(await deps.settings.save(locals(res).principal!, req.params.legalEntityId, input, locals(res).ctx));
  });

  router.get(`${BASE}/accounts`, async (req, res) => {
    const query = { q: optionalString(req, 'q') ?? '', type: (optionalString(req, 'type') ?? null) as AccountType | null, ...pageAndSize(req) };
    res.json(await deps.accounts.list(locals(res).principal!, req.params.legalEntityId, query));
  });

  router.post(`${BASE}/accounts`, async (req, res) => {
    res.status(201).json(await deps.accounts.create(locals(res).principal!, req.params.legalEntityId, req.body, locals(res).ctx));
  });

  router.get(`${BASE}/accounts/:code`, async (req, res) => {
    res.json(await deps.accounts.get(locals(res).principal!, req.params.legalEntityId, req.params.code));
  });

  router.put(`${BASE}/accounts/:code`, async (req, res) => {
    const { legalEntityId, code } = req.params;
    res.json(await deps.accounts.configure(locals(res).principal!, legalEntityId, code, req.body, locals(res).ctx));
  });

  router.get(`${BASE}/accounts/:code/subaccounts`, async (req, res) => {
    const query = { q: optionalString(req, 'q') ?? '', ...pageAndSize(req) };
    res.json(await deps.subaccounts.list(locals(res).principal!, req.params.legalEntityId, req.params.code, query));
  });

  router.post(`${BASE}/accounts/:code/subaccounts`, async (req, res) => {
    const { legalEntityId, code } = req.params;
    res.status(201).json(await deps.subaccounts.create(locals(res).principal!, legalEntityId, code, req.body, locals(res).ctx));
  });

  router.get(`${BASE}/accounts/:code/subaccounts/:subaccountId`, async (req, res) => {
    const { legalEntityId, code, subaccountId } = req.params;
    res.json(await deps.subaccounts.get(locals(res).principal!, legalEntityId, code, subaccountId));
  });

  router.put(`${BASE}/accounts/:code/subaccounts/:subaccountId`, async (req, res) => {
    const { legalEntityId, code, subaccountId } = req.params;
    res.json(await deps.subaccounts.configure(locals(res).principal!, legalEntityId, code, subaccountId, req.body, locals(res).ctx));
  });

  return router;
}
