import { createRegistrationActivities, type RegistrationDeps } from './identity/registration';
import { createEmailChallengeActivities, type EmailChallengeDeps } from './identity/email-challenge';
import { createPasswordResetActivities, type PasswordResetDeps } from './identity/password-reset';
import { createPeriodCloseActivities } from './ledger/period-close';
import { createInvitationActivities, type InvitationDeps } from './identity/invitation';
import { createRatesRefreshActivities, type RatesRefreshDeps } from './rates/rates-refresh';
import { createPushFanoutActivities, type PushFanoutDeps } from './notifications/push-fanout';
import { createHousekeepingActivities, type HousekeepingDeps } from './housekeeping/prune';

export type ActivityDeps = RegistrationDeps & PasswordResetDeps & EmailChallengeDeps & InvitationDeps & RatesRefreshDeps & PushFanoutDeps & HousekeepingDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRegistrationActivities(deps),
    ...createPasswordResetActivities(deps),
    ...createEmailChallengeActivities(deps),
    ...createPeriodCloseActivities(deps),
    ...createInvitationActivities(deps),
    ...createRatesRefreshActivities(deps),
    ...createPushFanoutActivities(deps),
    ...createHousekeepingActivities(deps),
  };
}
