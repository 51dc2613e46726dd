import { memberOperation, type HandlersOf } from '../http/operation-handler';
import { pageQuery } from '../http/pages';
import type { CompanyScopes } from '../organisation/company-scope';
import type { WebhookEvents } from '../webhooks/events';
import { createFixedAssets } from './assets';

export type FixedAssetOperation =
  | 'listFixedAssets'
  | 'createFixedAsset'
  | 'getFixedAsset'
  | 'updateFixedAsset'
  | 'commissionFixedAsset'
  | 'disposeFixedAsset'
  | 'getDepreciationSchedule'
  | 'getFixedAssetRegister';

/** The register of fixed assets. */
export function fixedAssetHandlers(deps: { companies: CompanyScopes; webhookEvents: WebhookEvents }): HandlersOf<FixedAssetOperation> {
  const assets = createFixedAssets(deps);
  return {
    listFixedAssets: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await assets.listFixedAssets(principal, params.legalEntityId, { ...(query.status ? { status: query.status } : {}), ...pageQuery(query) }),
    })),

    createFixedAsset: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 201,
      body: await assets.createFixedAsset(principal, params.legalEntityId, body, ctx),
    })),

    getFixedAsset: memberOperation(async ({ principal, params }) => ({
      status: 200,
      body: await assets.getFixedAsset(principal, params.legalEntityId, params.assetId),
    })),

    updateFixedAsset: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await assets.updateFixedAsset(principal, params.legalEntityId, params.assetId, body, ctx),
    })),

    commissionFixedAsset: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await assets.commissionFixedAsset(principal, params.legalEntityId, params.assetId, body, ctx),
    })),

    disposeFixedAsset: memberOperation(async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await assets.disposeFixedAsset(principal, params.legalEntityId, params.assetId, body, ctx),
    })),

    getFixedAssetRegister: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await assets.getFixedAssetRegister(principal, params.legalEntityId, { asOf: query.asOf, ...pageQuery(query) }),
    })),

    getDepreciationSchedule: memberOperation(async ({ principal, params, query }) => ({
      status: 200,
      body: await assets.getDepreciationSchedule(principal, params.legalEntityId, params.assetId, query.commissionedOn ? { commissionedOn: query.commissionedOn } : {}),
    })),
  };
}
