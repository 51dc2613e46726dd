import { createMailLinkActivities, type MailLinkDeps } from './identity/mail-link';
import { createRegisterActivities, type RegisterDeps } from './identity/register';
import { createEmailChallengeActivities, type EmailChallengeDeps } from './identity/email-challenge';
import { createClosePeriodActivities } from './ledger/close-period';
import { createPostRevaluationActivities } from './ledger/post-revaluation';
import { createMailInvitationActivities, type MailInvitationDeps } from './organisation/mail-invitation';
import { createAcceptInvitationActivities, type AcceptInvitationDeps } from './organisation/accept-invitation';
import { createRefreshRatesActivities, type RefreshRatesDeps } from './rates/refresh-rates';
import { createSendNotificationActivities, type SendNotificationDeps } from './notifications/send-notification';
import { createHousekeepingActivities, type HousekeepingDeps } from './housekeeping/housekeeping';
import { createDeliverWebhookActivities, type DeliverWebhookDeps } from './webhooks/deliver-webhook';
import { createImportBankStatementActivities } from './bank-statements/import-bank-statement';
import { createPostDepreciationActivities } from './fixed-assets/post-depreciation';

export type ActivityDeps = MailLinkDeps &
  RegisterDeps &
  EmailChallengeDeps &
  MailInvitationDeps &
  AcceptInvitationDeps &
  RefreshRatesDeps &
  SendNotificationDeps &
  HousekeepingDeps &
  DeliverWebhookDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMailLinkActivities(deps),
    ...createRegisterActivities(deps),
    ...createEmailChallengeActivities(deps),
    ...createClosePeriodActivities(deps),
    ...createPostRevaluationActivities(deps),
    ...createMailInvitationActivities(deps),
    ...createAcceptInvitationActivities(deps),
    ...createRefreshRatesActivities(deps),
    ...createSendNotificationActivities(deps),
    ...createHousekeepingActivities(deps),
    ...createDeliverWebhookActivities(deps),
    ...createImportBankStatementActivities(deps),
    ...createPostDepreciationActivities(deps),
  };
}
