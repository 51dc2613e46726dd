// The fixed assets' contracts: postDepreciationWorkflow (workflow depreciation-<legalEntityId>-<closeDate>,
// a child of every period close, before its revaluation and its snapshot) and its activity.

export interface PostDepreciationInput {
  tenantId: string;
  legalEntityId: string;
  closeId: string;
  closeDate: string;
  correlationId: string;
}

/** A month's DEPRECIATION entry: its month ('YYYY-MM'), how many assets it charged and its total. */
export interface DepreciationMonth {
  month: string;
  entryId: string;
  assets: number;
  total: string;
}

export type PostDepreciationResult = { status: 'COMPLETED'; months: DepreciationMonth[] } | { status: 'FAILED'; reason: string };

export interface PostDepreciationActivities {
  /**
   * Charges the company's assets in service for every month of the close's period not charged yet, through
   * the last month that ends on or before the close date: one DEPRECIATION entry per month, dated its last day,
   * a debit of the expense and a credit of the depreciation account per asset; the assets' accumulated
   * depreciation, their audit and webhook events, in one transaction. A retry finds the months charged and
   * posts nothing.
   */
  postDepreciationEntries(input: PostDepreciationInput): Promise<DepreciationMonth[]>;
}
