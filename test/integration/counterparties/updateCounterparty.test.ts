import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack';
import { api, bearer, registerWorkspace, type Registered } from '../../helpers/clients';
import { archiveCompany } from '../../helpers/members';
import {
  BANK_ACCOUNT,
  counterpartiesOf,
  counterpartyEvents,
  createCounterparty,
  getCounterparty,
  updateCounterparty,
} from '../../helpers/counterparties';

let stack: TestStack;
let bob: Registered;
beforeAll(async () => {
  stack = await startTestStack();
  bob = await registerWorkspace(stack);
});
afterAll(async () => {
  await stack.stop();
});

const FULL = {
  name: 'Fergana Textile LLC',
  tin: '207000007',
  vatRegistrationCode: '326010099999',
  bankAccounts: [BANK_ACCOUNT],
  address: 'Fergana, Mustaqillik 5',
  paymentTermsDays: 10,
};

async function registerWith(body: Record<string, unknown> = FULL): Promise<{ who: Registered; id: string }> {
  const who = await registerWorkspace(stack);
  const created = await createCounterparty(stack, who, body).expect(201);
  return { who, id: created.body.id };
}

describe('PUT /counterparties/{legalEntityId}/{counterpartyId} (updateCounterparty)', () => {
  test('"a full replacement": 200 at version 2 with exactly the fields sent, optional ones left out cleared; one audit event counterparty.updated', async () => {
    const { who, id } = await registerWith();
    const res = await updateCounterparty(stack, who, id, { name: ' Fergana Textile JSC ', tin: '207000007', paymentTermsDays: 45, archived: false, expectedVersion: 1 }).expect(200);
    expect(res.body).toEqual({
      id,
      name: 'Fergana Textile JSC',
      tin: '207000007',
      pinfl: null,
      vatRegistrationCode: null,
      bankAccounts: [],
      address: null,
      paymentTermsDays: 45,
      archived: false,
      version: 2,
    });
    expect((await getCounterparty(stack, who, id).expect(200)).body).toEqual(res.body);
    expect(await counterpartyEvents(stack, who)).toEqual([
      expect.objectContaining({ action: 'counterparty.created' }),
      { action: 'counterparty.updated', category: 'COUNTERPARTIES', subject_type: 'COUNTERPARTY', subject_id: id, details: 'version 2' },
    ]);
  });

  test('what GET answers, without id and version, plus expectedVersion, is a valid PUT body: a save changes nothing but the version', async () => {
    const { who, id } = await registerWith();
    const { id: _id, version, ...fields } = (await getCounterparty(stack, who, id).expect(200)).body;
    const res = await updateCounterparty(stack, who, id, { ...fields, expectedVersion: version }).expect(200);
    expect(res.body).toEqual({ id, ...fields, version: 2 });
  });

  test('a legal entity may become an individual: the TIN replaced by a PINFL', async () => {
    const { who, id } = await registerWith();
    const res = await updateCounterparty(stack, who, id, { ...FULL, tin: null, pinfl: '51234567890123', archived: false, expectedVersion: 1 }).expect(200);
    expect(res.body).toMatchObject({ tin: null, pinfl: '51234567890123', version: 2 });
  });

  test('"archive instead of delete": archived true archives it (counterparty.archived), it leaves the default list, false restores it', async () => {
    const { who, id } = await registerWith();
    const archived = await updateCounterparty(stack, who, id, { ...FULL, archived: true, expectedVersion: 1 }).expect(200);
    expect(archived.body).toMatchObject({ ...FULL, archived: true, version: 2 });
    const listed = async (archivedFilter: string) =>
      (await api(stack).get(counterpartiesOf(who)).query({ archived: archivedFilter }).set(...bearer(who.accessToken)).expect(200)).body.items.map((c: { id: string }) => c.id);
    expect(await listed('false')).toEqual([]);
    expect(await listed('true')).toEqual([id]);
    const restored = await updateCounterparty(stack, who, id, { ...FULL, archived: false, expectedVersion: 2 }).expect(200);
    expect(restored.body).toMatchObject({ archived: false, version: 3 });
    expect(await listed('false')).toEqual([id]);
    expect(await counterpartyEvents(stack, who)).toEqual([
      expect.objectContaining({ action: 'counterparty.created' }),
      expect.objectContaining({ action: 'counterparty.archived', subject_id: id, details: 'version 2' }),
      expect.objectContaining({ action: 'counterparty.updated', subject_id: id, details: 'version 3, restored from the archive' }),
    ]);
  });

  test('an archived counterparty saved again while archived is an update, not a second archive', async () => {
    const { who, id } = await registerWith();
    await updateCounterparty(stack, who, id, { ...FULL, archived: true, expectedVersion: 1 }).expect(200);
    await updateCounterparty(stack, who, id, { ...FULL, address: 'Moved', archived: true, expectedVersion: 2 }).expect(200);
    expect((await counterpartyEvents(stack, who)).map((e) => e.action)).toEqual(['counterparty.created', 'counterparty.archived', 'counterparty.updated']);
  });

  test('"stale expectedVersion": 409 stale-version, nothing changes, no audit event', async () => {
    const { who, id } = await registerWith();
    await updateCounterparty(stack, who, id, { ...FULL, name: 'Second', archived: false, expectedVersion: 1 }).expect(200);
    for (const expectedVersion of [1, 3, 99]) {
      const res = await updateCounterparty(stack, who, id, { ...FULL, name: 'Lost update', archived: true, expectedVersion }).expect(409);
      expect(res.body.type).toBe('/problems/stale-version');
    }
    expect((await getCounterparty(stack, who, id).expect(200)).body).toMatchObject({ name: 'Second', archived: false, version: 2 });
    expect(await counterpartyEvents(stack, who)).toHaveLength(2);
  });

  test('20 concurrent PUTs with the same expectedVersion: exactly one 200, the rest 409 stale-version', async () => {
    const { who, id } = await registerWith();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => updateCounterparty(stack, who, id, { ...FULL, name: `Writer ${i}`, archived: false, expectedVersion: 1 })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.type === '/problems/stale-version')).toHaveLength(19);
    const winner = results.find((r) => r.status === 200)!.body;
    expect((await getCounterparty(stack, who, id).expect(200)).body).toEqual(winner);
    expect(await counterpartyEvents(stack, who)).toHaveLength(2);
  });

  test('"TIN and PINFL unique per company": taking another counterparty\'s number is 409 counterparty-tin-exists naming it; keeping one\'s own is fine', async () => {
    const { who, id } = await registerWith();
    await createCounterparty(stack, who, { name: 'Other LLC', tin: '208000008' }).expect(201);
    await createCounterparty(stack, who, { name: 'Other Person', pinfl: '61234567890123' }).expect(201);
    const tin = await updateCounterparty(stack, who, id, { ...FULL, tin: '208000008', archived: false, expectedVersion: 1 }).expect(409);
    expect(tin.body).toMatchObject({ type: '/problems/counterparty-tin-exists', tin: '208000008' });
    const pinfl = await updateCounterparty(stack, who, id, { ...FULL, tin: null, pinfl: '61234567890123', archived: false, expectedVersion: 1 }).expect(409);
    expect(pinfl.body).toMatchObject({ type: '/problems/counterparty-tin-exists', pinfl: '61234567890123' });
    expect((await getCounterparty(stack, who, id).expect(200)).body).toMatchObject({ tin: FULL.tin, pinfl: null, version: 1 });
    await updateCounterparty(stack, who, id, { ...FULL, name: 'Same TIN', archived: false, expectedVersion: 1 }).expect(200);
  });

  test.each([
    ['no expectedVersion', { ...FULL, archived: false }],
    ['no archived', { ...FULL, expectedVersion: 1 }],
    ['expectedVersion 0', { ...FULL, archived: false, expectedVersion: 0 }],
    ['"both a TIN and a PINFL"', { ...FULL, pinfl: '31234567890123', archived: false, expectedVersion: 1 }],
    ['"a name that is blank once trimmed"', { ...FULL, name: '   ', archived: false, expectedVersion: 1 }],
    ['"the same bank account twice"', { ...FULL, bankAccounts: [BANK_ACCOUNT, BANK_ACCOUNT], archived: false, expectedVersion: 1 }],
    ['"payment terms of 366 days"', { ...FULL, paymentTermsDays: 366, archived: false, expectedVersion: 1 }],
    ['a version member (it is expectedVersion)', { ...FULL, archived: false, expectedVersion: 1, version: 1 }],
  ])('when the body has %s, then 400 validation and nothing changes', async (_case, body) => {
    const { who, id } = await registerWith();
    expect((await updateCounterparty(stack, who, id, body).expect(400)).body.type).toBe('/problems/validation');
    expect((await getCounterparty(stack, who, id).expect(200)).body).toMatchObject({ ...FULL, version: 1 });
  });

  test('when the company is archived, then 409 company-archived and nothing changes; an unknown counterparty there is 404', async () => {
    const { who, id } = await registerWith();
    await archiveCompany(stack, who.me.company.id);
    expect((await updateCounterparty(stack, who, id, { ...FULL, archived: true, expectedVersion: 1 }).expect(409)).body.type).toBe('/problems/company-archived');
    expect((await getCounterparty(stack, who, id).expect(200)).body).toMatchObject({ archived: false, version: 1 });
    await updateCounterparty(stack, who, randomUUID(), { ...FULL, archived: true, expectedVersion: 1 }).expect(404);
  });

  test("when the counterparty is unknown or another tenant's, then 404 and it stays as it was", async () => {
    const { who, id } = await registerWith();
    expect((await updateCounterparty(stack, who, randomUUID(), { ...FULL, archived: false, expectedVersion: 1 }).expect(404)).body.type).toBe('/problems/not-found');
    await updateCounterparty(stack, bob, id, { ...FULL, name: 'Hijacked', archived: true, expectedVersion: 1 }).expect(404);
    await api(stack).put(`${counterpartiesOf(bob, who.me.company.id)}/${id}`).set(...bearer(bob.accessToken))
      .send({ ...FULL, name: 'Hijacked', archived: true, expectedVersion: 1 }).expect(404);
    expect((await getCounterparty(stack, who, id).expect(200)).body).toMatchObject({ name: FULL.name, archived: false, version: 1 });
  });
});
