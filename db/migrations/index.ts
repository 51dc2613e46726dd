import type { MigrationContext } from './context';
import * as foundation from './2026.11.21T06.00.00.foundation';
import * as secondFactors from './2026.11.21T07.00.00.second-factors';
import * as chartOfAccounts from './2026.11.21T08.00.00.chart-of-accounts';
import * as ledger from './2026.11.21T09.00.00.ledger';
import * as principalLookup from './2026.11.21T10.00.00.principal-lookup';
import * as factorAttemptReservations from './2026.11.23T06.00.00.factor-attempt-reservations';
import * as sessionStepUp from './2026.11.23T07.00.00.session-step-up';
import * as requestLimits from './2026.11.23T08.00.00.request-limits';
import * as forceRowLevelSecurity from './2026.11.23T09.00.00.force-row-level-security';
import * as workflowStarts from './2026.11.23T10.00.00.workflow-starts';
import * as syncRolePermissions from './2026.11.23T11.00.00.sync-role-permissions';
import * as membershipInvitations from './2026.11.23T12.00.00.membership-invitations';
import * as exchangeRates from './2026.11.23T13.00.00.exchange-rates';
import * as pushNotifications from './2026.11.23T14.00.00.push-notifications';
import * as mailDelivery from './2026.11.23T15.00.00.mail-delivery';
import * as housekeeping from './2026.11.23T16.00.00.housekeeping';
import * as principalPlanCache from './2026.11.23T17.00.00.principal-plan-cache';
import * as chartPagePlanCache from './2026.11.23T18.00.00.chart-page-plan-cache';
import * as invitationMailboxProof from './2026.11.24T07.00.00.invitation-mailbox-proof';
import * as passwordReset from './2026.11.24T08.00.00.password-reset';
import * as headerAccounts from './2026.11.24T14.00.00.header-accounts';
import * as chartHeaders from './2026.11.26T10.00.00.chart-headers';
import * as webhookPendingDeliveries from './2026.11.26T11.00.00.webhook-pending-deliveries';
import * as counterparties from './2026.11.26T12.00.00.counterparties';
import * as journalLineCounterparties from './2026.11.26T13.00.00.journal-line-counterparties';
import * as journalLinesByCounterparty from './2026.11.26T13.30.00.journal-lines-by-counterparty';
import * as invoices from './2026.11.26T14.00.00.invoices';
import * as payments from './2026.11.26T15.00.00.payments';
import * as vatRegister from './2026.11.26T15.30.00.vat-register';
import * as bankAccounts from './2026.11.28T09.00.00.bank-accounts';
import * as agingReads from './2026.11.28T10.00.00.aging-reads';
import * as bankStatements from './2026.11.28T13.00.00.bank-statements';
import * as bankMatchingRules from './2026.11.28T13.30.00.bank-matching-rules';
import * as bankStatementProfiles from './2026.11.28T14.00.00.bank-statement-profiles';
import * as bankRulesAutoConfirm from './2026.11.28T16.00.00.bank-rules-auto-confirm';
import * as fixedAssets from './2026.11.28T17.00.00.fixed-assets';
import * as depreciation from './2026.11.28T17.30.00.depreciation';
import * as fixedAssetCharges from './2026.11.28T18.00.00.fixed-asset-charges';
import * as fixedAssetSources from './2026.11.28T18.30.00.fixed-asset-sources';
import * as disposalResults from './2026.11.28T18.45.00.disposal-results';
import * as journalDayTotals from './2026.11.28T22.30.00.journal-day-totals';
import * as invoiceVatGroups from './2026.11.29T00.00.00.invoice-vat-groups';
import * as agingCoveringIndex from './2026.11.29T02.30.00.aging-covering-index';
import * as chartPageCustomPlans from './2026.11.29T03.00.00.chart-page-custom-plans';
import * as bankStatementFileParts from './2026.11.29T05.00.00.bank-statement-file-parts';
import * as tenantStatistics from './2026.11.29T06.00.00.tenant-statistics';
import * as invoicePostingFunctions from './2026.11.29T06.30.00.invoice-posting-functions';
import * as triggerGenericPlans from './2026.11.29T12.00.00.trigger-generic-plans';
import * as agingKept from './2026.11.29T14.00.00.aging-kept';
import * as magicLinks from './2026.11.25T06.00.00.magic-links';
import * as webhooks from './2026.11.25T07.00.00.webhooks';
import * as webhookDelivery from './2026.11.25T07.30.00.webhook-delivery';
import * as foreignCurrency from './2026.11.25T09.00.00.foreign-currency';
import * as accountStatementIndex from './2026.11.25T10.00.00.account-statement-index';
import * as yearEndClosing from './2026.11.25T11.00.00.year-end-closing';

export type { MigrationContext };

interface MigrationModule {
  up(ctx: MigrationContext): Promise<void>;
  down(ctx: MigrationContext): Promise<void>;
}

/** Applied in this order; a name never changes once it has shipped. */
export const MIGRATIONS: Array<{ name: string; module: MigrationModule }> = [
  { name: '2026.11.21T06.00.00.foundation', module: foundation },
  { name: '2026.11.21T07.00.00.second-factors', module: secondFactors },
  { name: '2026.11.21T08.00.00.chart-of-accounts', module: chartOfAccounts },
  { name: '2026.11.21T09.00.00.ledger', module: ledger },
  { name: '2026.11.21T10.00.00.principal-lookup', module: principalLookup },
  { name: '2026.11.23T06.00.00.factor-attempt-reservations', module: factorAttemptReservations },
  { name: '2026.11.23T07.00.00.session-step-up', module: sessionStepUp },
  { name: '2026.11.23T08.00.00.request-limits', module: requestLimits },
  { name: '2026.11.23T09.00.00.force-row-level-security', module: forceRowLevelSecurity },
  { name: '2026.11.23T10.00.00.workflow-starts', module: workflowStarts },
  { name: '2026.11.23T11.00.00.sync-role-permissions', module: syncRolePermissions },
  { name: '2026.11.23T12.00.00.membership-invitations', module: membershipInvitations },
  { name: '2026.11.23T13.00.00.exchange-rates', module: exchangeRates },
  { name: '2026.11.23T14.00.00.push-notifications', module: pushNotifications },
  { name: '2026.11.23T15.00.00.mail-delivery', module: mailDelivery },
  { name: '2026.11.23T16.00.00.housekeeping', module: housekeeping },
  { name: '2026.11.23T17.00.00.principal-plan-cache', module: principalPlanCache },
  { name: '2026.11.23T18.00.00.chart-page-plan-cache', module: chartPagePlanCache },
  { name: '2026.11.24T07.00.00.invitation-mailbox-proof', module: invitationMailboxProof },
  { name: '2026.11.24T08.00.00.password-reset', module: passwordReset },
  { name: '2026.11.24T14.00.00.header-accounts', module: headerAccounts },
  { name: '2026.11.25T06.00.00.magic-links', module: magicLinks },
  { name: '2026.11.25T07.00.00.webhooks', module: webhooks },
  { name: '2026.11.25T07.30.00.webhook-delivery', module: webhookDelivery },
  { name: '2026.11.25T09.00.00.foreign-currency', module: foreignCurrency },
  { name: '2026.11.25T10.00.00.account-statement-index', module: accountStatementIndex },
  { name: '2026.11.25T11.00.00.year-end-closing', module: yearEndClosing },
  { name: '2026.11.26T10.00.00.chart-headers', module: chartHeaders },
  { name: '2026.11.26T11.00.00.webhook-pending-deliveries', module: webhookPendingDeliveries },
  { name: '2026.11.26T12.00.00.counterparties', module: counterparties },
  { name: '2026.11.26T13.00.00.journal-line-counterparties', module: journalLineCounterparties },
  { name: '2026.11.26T13.30.00.journal-lines-by-counterparty', module: journalLinesByCounterparty },
  { name: '2026.11.26T14.00.00.invoices', module: invoices },
  { name: '2026.11.26T15.00.00.payments', module: payments },
  { name: '2026.11.26T15.30.00.vat-register', module: vatRegister },
  { name: '2026.11.28T09.00.00.bank-accounts', module: bankAccounts },
  { name: '2026.11.28T10.00.00.aging-reads', module: agingReads },
  { name: '2026.11.28T13.00.00.bank-statements', module: bankStatements },
  { name: '2026.11.28T13.30.00.bank-matching-rules', module: bankMatchingRules },
  { name: '2026.11.28T14.00.00.bank-statement-profiles', module: bankStatementProfiles },
  { name: '2026.11.28T16.00.00.bank-rules-auto-confirm', module: bankRulesAutoConfirm },
  { name: '2026.11.28T17.00.00.fixed-assets', module: fixedAssets },
  { name: '2026.11.28T17.30.00.depreciation', module: depreciation },
  { name: '2026.11.28T18.00.00.fixed-asset-charges', module: fixedAssetCharges },
  { name: '2026.11.28T18.30.00.fixed-asset-sources', module: fixedAssetSources },
  { name: '2026.11.28T18.45.00.disposal-results', module: disposalResults },
  { name: '2026.11.28T22.30.00.journal-day-totals', module: journalDayTotals },
  { name: '2026.11.29T00.00.00.invoice-vat-groups', module: invoiceVatGroups },
  { name: '2026.11.29T02.30.00.aging-covering-index', module: agingCoveringIndex },
  { name: '2026.11.29T03.00.00.chart-page-custom-plans', module: chartPageCustomPlans },
  { name: '2026.11.29T05.00.00.bank-statement-file-parts', module: bankStatementFileParts },
  { name: '2026.11.29T06.00.00.tenant-statistics', module: tenantStatistics },
  { name: '2026.11.29T06.30.00.invoice-posting-functions', module: invoicePostingFunctions },
  { name: '2026.11.29T12.00.00.trigger-generic-plans', module: triggerGenericPlans },
  { name: '2026.11.29T14.00.00.aging-kept', module: agingKept },
];
