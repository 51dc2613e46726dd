import { createRegistrationActivities, type RegistrationDeps } from './registration';

export type ActivityDeps = RegistrationDeps;

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRegistrationActivities(deps),
  };
}
