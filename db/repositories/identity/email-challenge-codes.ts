import { EmailChallengeCode } from '../../models';
import { execute, transactionOf, type Db } from '../../connection';

// The mailed code of an email challenge, kept encrypted under the challenge id while the challenge runs
// (table email_challenge_codes). Serves emailChallengeWorkflow's activities.

/** Stores the challenge's sealed code unless one exists; returns whichever is stored. */
export async function storeChallengeCode(db: Db, identityId: string, input: { challengeId: string; codeEncrypted: string }): Promise<string> {
  // Raw SQL: ON CONFLICT DO NOTHING keeps the first code when a retried activity races the first attempt.
  await execute(
    db,
    `INSERT INTO email_challenge_codes (challenge_id, identity_id, code_encrypted) VALUES (:challengeId, :identityId, :codeEncrypted)
     ON CONFLICT (challenge_id) DO NOTHING`,
    { identityId, ...input },
  );
  const stored = await EmailChallengeCode.findByPk(input.challengeId, { transaction: transactionOf(db) });
  return stored!.codeEncrypted;
}

export async function deleteChallengeCode(db: Db, challengeId: string): Promise<void> {
  await EmailChallengeCode.destroy({ where: { challengeId }, transaction: transactionOf(db) });
}
