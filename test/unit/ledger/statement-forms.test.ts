import fc from 'fast-check';
import { FORM_1, FORM_2, type BalanceRule, type StatementTemplate } from '../../../core/ledger/statement-forms';
import { evaluateStatement, formulaTerms, type AccountAmount } from '../../../core/ledger/statement-evaluator';
import { formatMinorUnits, toMinorUnits } from '../../../core/ledger/money';
import { NAS21_CHART_OF_ACCOUNTS } from '../../../db/seeds/2026.11.21T08.00.00.nas21-chart-of-accounts';

const TEMPLATES = [FORM_1, FORM_2];
const ROW_CODE = /^\d{3}$/;
const ALL_CODES = Array.from({ length: 10000 }, (_, i) => String(i).padStart(4, '0'));
const uzs = (amount: string) => toMinorUnits(amount);

/** Every range of the template that reads `code`, with its row. */
function treatmentsOf(template: StatementTemplate, code: string): { row: string; rule: BalanceRule }[] {
  return template.rows.flatMap((row) => (row.accounts ?? []).filter((r) => r.from <= code && code <= r.to).map((r) => ({ row: row.code, rule: r.rule })));
}

/** How many times each row counts in `root`, formulas expanded down to the rows read from accounts. */
function coefficients(template: StatementTemplate, root: string): Map<string, number> {
  const byCode = new Map(template.rows.map((r) => [r.code, r]));
  const out = new Map<string, number>();
  const walk = (code: string, factor: number) => {
    const row = byCode.get(code)!;
    if (row.formula === undefined) out.set(code, (out.get(code) ?? 0) + factor);
    else for (const t of formulaTerms(row.formula)) walk(t.code, factor * t.sign);
  };
  walk(root, 1);
  return out;
}

function single(accountCode: string, side: 'debit' | 'credit', amount = 100n): AccountAmount[] {
  return [{ accountCode, debit: side === 'debit' ? amount : 0n, credit: side === 'credit' ? amount : 0n }];
}

describe('the templates are well formed', () => {
  test.each(TEMPLATES.map((t) => [t.form, t] as const))('%s: codes are unique, each row is read from accounts, computed, or has no amount', (_form, template) => {
    const codes = template.rows.map((r) => r.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const row of template.rows) {
      expect(row.accounts !== undefined && row.formula !== undefined).toBe(false);
      if (row.accounts === undefined && row.formula === undefined) {
        // A heading has no official code; an official row without an amount says why.
        if (ROW_CODE.test(row.code)) expect(row.note).toBeTruthy();
      } else {
        expect(row.code).toMatch(ROW_CODE);
      }
      for (const range of row.accounts ?? []) {
        expect(range.from).toMatch(/^\d{4}$/);
        expect(range.to).toMatch(/^\d{4}$/);
        expect(range.from <= range.to).toBe(true);
      }
    }
    expect(template.effectiveFrom).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(template.source).toContain('1209');
  });

  test.each(TEMPLATES.map((t) => [t.form, t] as const))('%s: formulas name existing rows that have an amount, without cycles', (_form, template) => {
    const byCode = new Map(template.rows.map((r) => [r.code, r]));
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (code: string, path: string[]) => {
      if (state.get(code) === 'done') return;
      if (state.get(code) === 'visiting') throw new Error(`cycle: ${[...path, code].join(' → ')}`);
      state.set(code, 'visiting');
      const row = byCode.get(code);
      if (!row) throw new Error(`${path.at(-1)} refers to unknown row ${code}`);
      if (row.formula !== undefined) {
        for (const term of formulaTerms(row.formula)) {
          const target = byCode.get(term.code);
          if (!target || (target.accounts === undefined && target.formula === undefined)) throw new Error(`${code} refers to ${term.code}, which has no amount`);
          visit(term.code, [...path, code]);
        }
      }
      state.set(code, 'done');
    };
    for (const row of template.rows) expect(() => visit(row.code, [])).not.toThrow();
  });

  test('Form 1 reads balances and Form 2 reads turnovers', () => {
    const rules = (t: StatementTemplate) => new Set(t.rows.flatMap((r) => (r.accounts ?? []).map((a) => a.rule)));
    for (const rule of rules(FORM_1)) expect(['DEBIT_BALANCE', 'CREDIT_BALANCE', 'DEBIT_BALANCE_IF_POSITIVE', 'CREDIT_BALANCE_IF_POSITIVE']).toContain(rule);
    for (const rule of rules(FORM_2)) expect(['DEBIT_TURNOVER', 'CREDIT_TURNOVER', 'NET_CREDIT', 'NET_DEBIT']).toContain(rule);
  });

  test('the evaluator refuses a cycle, an unknown row and a formula that is not one', () => {
    const base = { form: 'FORM_1', version: 'x', effectiveFrom: '2026-01-01', title: 'x', source: 'x' } as const;
    expect(() => evaluateStatement({ ...base, rows: [{ code: '010', name: 'a', formula: '020' }, { code: '020', name: 'b', formula: '010' }] }, [])).toThrow(/cycle/);
    expect(() => evaluateStatement({ ...base, rows: [{ code: '010', name: 'a', formula: '030' }] }, [])).toThrow(/unknown row 030/);
    expect(() => formulaTerms('010*2')).toThrow(SyntaxError);
    expect(formulaTerms('410+420-440')).toEqual([
      { sign: 1, code: '410' },
      { sign: 1, code: '420' },
      { sign: -1, code: '440' },
    ]);
  });
});

describe('Form 1 coverage: every account on exactly one side', () => {
  const assets = coefficients(FORM_1, '400');
  const equityAndLiabilities = coefficients(FORM_1, '780');

  function checkCoverage(code: string) {
    const found = treatmentsOf(FORM_1, code);
    const plain = found.filter((t) => t.rule === 'DEBIT_BALANCE' || t.rule === 'CREDIT_BALANCE');
    if (plain.length === 1 && found.length === 1) {
      const row = plain[0]!.row;
      // In one of the two totals, exactly once, and not in the other.
      const inAssets = assets.get(row) ?? 0;
      const inOther = equityAndLiabilities.get(row) ?? 0;
      expect([Math.abs(inAssets), Math.abs(inOther)].sort()).toEqual([0, 1]);
      return;
    }
    // A settlement account shown on the side its balance is on: one half on each side.
    const debitHalf = found.filter((t) => t.rule === 'DEBIT_BALANCE_IF_POSITIVE');
    const creditHalf = found.filter((t) => t.rule === 'CREDIT_BALANCE_IF_POSITIVE');
    expect({ code, found: found.length, debitHalf: debitHalf.length, creditHalf: creditHalf.length }).toEqual({ code, found: 2, debitHalf: 1, creditHalf: 1 });
    expect([assets.get(debitHalf[0]!.row) ?? 0, equityAndLiabilities.get(debitHalf[0]!.row) ?? 0]).toEqual([1, 0]);
    expect([assets.get(creditHalf[0]!.row) ?? 0, equityAndLiabilities.get(creditHalf[0]!.row) ?? 0]).toEqual([0, 1]);
  }

  test('every account of the NAS 21 seed, 0100 to 9910, has exactly one treatment', () => {
    expect(NAS21_CHART_OF_ACCOUNTS.length).toBe(321);
    for (const { code } of NAS21_CHART_OF_ACCOUNTS) checkCoverage(code);
  });

  test('so does every other four-digit code, so a custom account cannot unbalance the form', () => {
    for (const code of ALL_CODES) checkCoverage(code);
  });

  test('a balance on any one account moves total assets minus total liabilities and equity by exactly that balance, on one side only', () => {
    for (const code of ALL_CODES) {
      for (const side of ['debit', 'credit'] as const) {
        const values = evaluateStatement(FORM_1, single(code, side));
        const a = values.get('400')!;
        const p = values.get('780')!;
        expect({ code, side, net: a - p }).toEqual({ code, side, net: side === 'debit' ? 100n : -100n });
        expect({ code, side, sides: [a !== 0n, p !== 0n].filter(Boolean).length }).toEqual({ code, side, sides: 1 });
      }
    }
  });

  test("each seed account's normal balance lands on the side its type says", () => {
    for (const { code, type } of NAS21_CHART_OF_ACCOUNTS) {
      const side = type === 'ASSET' || type === 'EXPENSE' ? 'debit' : 'credit';
      const values = evaluateStatement(FORM_1, single(code, side));
      const expected = {
        ASSET: ['100', '0'],
        CONTRA_ASSET: ['-100', '0'],
        LIABILITY: ['0', '100'],
        EQUITY: ['0', '100'],
        INCOME: ['0', '100'],
        EXPENSE: ['0', '-100'],
      }[type];
      expect({ code, totals: [String(values.get('400')), String(values.get('780'))] }).toEqual({ code, totals: expected });
    }
  });

  test.each([
    ['0111', 'debit', '010'],
    ['0310', 'debit', '010'],
    ['0211', 'credit', '011'],
    ['0430', 'debit', '020'],
    ['0590', 'credit', '021'],
    ['0610', 'debit', '040'],
    ['0620', 'debit', '050'],
    ['0630', 'debit', '060'],
    ['0640', 'debit', '070'],
    ['0690', 'debit', '080'],
    ['0720', 'debit', '090'],
    ['0890', 'debit', '100'],
    ['0930', 'debit', '110'],
    ['0960', 'debit', '120'],
    ['0990', 'debit', '120'],
    ['1610', 'debit', '150'],
    ['1120', 'debit', '150'],
    ['2510', 'debit', '160'],
    ['2710', 'debit', '160'],
    ['2830', 'debit', '170'],
    ['2980', 'credit', '180'],
    ['3120', 'debit', '190'],
    ['3210', 'debit', '200'],
    ['4010', 'debit', '220'],
    ['4010', 'credit', '670'],
    ['4910', 'credit', '220'],
    ['4110', 'debit', '230'],
    ['4110', 'credit', '620'],
    ['4120', 'debit', '240'],
    ['4210', 'credit', '720'],
    ['4220', 'credit', '760'],
    ['4320', 'debit', '260'],
    ['4320', 'credit', '610'],
    ['4410', 'debit', '270'],
    ['4510', 'credit', '690'],
    ['4520', 'credit', '700'],
    ['4610', 'debit', '290'],
    ['4730', 'debit', '300'],
    ['4830', 'debit', '310'],
    ['5010', 'debit', '330'],
    ['5110', 'debit', '340'],
    ['5220', 'debit', '350'],
    ['5510', 'debit', '360'],
    ['5710', 'debit', '360'],
    ['5830', 'debit', '370'],
    ['5910', 'debit', '380'],
    ['6010', 'credit', '610'],
    ['6010', 'debit', '260'],
    ['6110', 'credit', '620'],
    ['6120', 'credit', '630'],
    ['6230', 'credit', '640'],
    ['6240', 'credit', '650'],
    ['6250', 'credit', '660'],
    ['6310', 'credit', '670'],
    ['6310', 'debit', '220'],
    ['6320', 'debit', '290'],
    ['6410', 'credit', '680'],
    ['6410', 'debit', '270'],
    ['6510', 'credit', '690'],
    ['6520', 'credit', '700'],
    ['6520', 'debit', '280'],
    ['6610', 'credit', '710'],
    ['6710', 'credit', '720'],
    ['6710', 'debit', '250'],
    ['6810', 'credit', '730'],
    ['6830', 'credit', '740'],
    ['6950', 'credit', '750'],
    ['6920', 'credit', '760'],
    ['6970', 'debit', '250'],
    ['6990', 'debit', '310'],
    ['7010', 'credit', '500'],
    ['7110', 'credit', '510'],
    ['7120', 'credit', '520'],
    ['7220', 'credit', '530'],
    ['7240', 'credit', '540'],
    ['7290', 'credit', '550'],
    ['7310', 'credit', '560'],
    ['7810', 'credit', '570'],
    ['7840', 'credit', '580'],
    ['7910', 'credit', '590'],
    ['8310', 'credit', '410'],
    ['8410', 'credit', '420'],
    ['8520', 'credit', '430'],
    ['8620', 'debit', '440'],
    ['8710', 'credit', '450'],
    ['8720', 'credit', '450'],
    ['9010', 'credit', '450'],
    ['9420', 'debit', '450'],
    ['9910', 'credit', '450'],
    ['8820', 'credit', '460'],
    ['8910', 'credit', '470'],
  ] as const)('%s with a %s balance is shown on row %s', (code, side, row) => {
    const values = evaluateStatement(FORM_1, single(code, side));
    const leaves = FORM_1.rows.filter((r) => r.accounts && values.get(r.code) !== 0n).map((r) => r.code);
    expect(leaves).toEqual([row]);
  });
});

describe('Form 2 coverage', () => {
  test('every income and expense account 9000–9899 is read by exactly one row; nothing else is read', () => {
    for (const code of ALL_CODES) {
      const found = treatmentsOf(FORM_2, code);
      expect({ code, rows: found.length }).toEqual({ code, rows: code >= '9000' && code <= '9899' ? 1 : 0 });
    }
  });

  test('a credit turnover on any account 9000–9899 raises the net profit (270) by exactly that amount', () => {
    for (const code of ALL_CODES.filter((c) => c >= '9000' && c <= '9899')) {
      expect({ code, net: evaluateStatement(FORM_2, single(code, 'credit')).get('270') }).toEqual({ code, net: 100n });
      expect({ code, net: evaluateStatement(FORM_2, single(code, 'debit')).get('270') }).toEqual({ code, net: -100n });
    }
  });

  test.each([
    ['9010', '010'],
    ['9050', '010'],
    ['9120', '020'],
    ['9150', '020'],
    ['9210', '090'],
    ['9390', '090'],
    ['9410', '050'],
    ['9420', '060'],
    ['9430', '070'],
    ['9440', '080'],
    ['9510', '160'],
    ['9520', '120'],
    ['9530', '130'],
    ['9540', '150'],
    ['9550', '140'],
    ['9590', '160'],
    ['9610', '180'],
    ['9620', '200'],
    ['9630', '210'],
    ['9710', '230'],
    ['9720', '230'],
    ['9810', '250'],
    ['9820', '260'],
  ] as const)('%s is read by row %s', (code, row) => {
    expect(treatmentsOf(FORM_2, code).map((t) => t.row)).toEqual([row]);
  });
});

/** A tiny ledger: entries posted to accounts (optionally "code/subaccount"), summed per key. */
interface Entry {
  dr: string;
  cr: string;
  amount: string;
  closing?: boolean;
}

function amountsOf(entries: Entry[], opts: { bySubaccount: boolean; withoutClosing?: boolean }): AccountAmount[] {
  const totals = new Map<string, { debit: bigint; credit: bigint }>();
  const add = (key: string, debit: bigint, credit: bigint) => {
    const k = opts.bySubaccount ? key : key.slice(0, 4);
    const t = totals.get(k) ?? { debit: 0n, credit: 0n };
    totals.set(k, { debit: t.debit + debit, credit: t.credit + credit });
  };
  for (const e of entries) {
    if (opts.withoutClosing && e.closing) continue;
    add(e.dr, uzs(e.amount), 0n);
    add(e.cr, 0n, uzs(e.amount));
  }
  return [...totals].map(([key, t]) => ({ accountCode: key.slice(0, 4), ...t }));
}

/** The closing of every income and expense account into 9910, then 9910 into 8710, as a year-end close books it. */
function closingEntries(entries: Entry[]): Entry[] {
  const closing: Entry[] = [];
  let result = 0n;
  for (const { accountCode, debit, credit } of amountsOf(entries, { bySubaccount: false })) {
    if (accountCode < '9000' || accountCode > '9899' || debit === credit) continue;
    const net = credit - debit;
    result += net;
    const amount = formatMinorUnits(net < 0n ? -net : net);
    closing.push(net > 0n ? { dr: accountCode, cr: '9910', amount, closing: true } : { dr: '9910', cr: accountCode, amount, closing: true });
  }
  const amount = formatMinorUnits(result < 0n ? -result : result);
  closing.push(result > 0n ? { dr: '9910', cr: '8710', amount, closing: true } : { dr: '8710', cr: '9910', amount, closing: true });
  return closing;
}

describe('a hand-made ledger', () => {
  // One company's first period, in UZS. Customer A buys on credit and pays most of it; customer B pays an
  // advance that was booked on 4010 too; the supplier is overpaid; tax is prepaid, then accrued above it.
  const entries: Entry[] = [
    { dr: '5110', cr: '8330', amount: '100000' },
    { dr: '0130', cr: '6010', amount: '30000' },
    { dr: '6010', cr: '5110', amount: '20000' },
    { dr: '4310', cr: '5110', amount: '5000' },
    { dr: '2910', cr: '6010', amount: '40000' },
    { dr: '6010', cr: '5110', amount: '55000' },
    { dr: '4010/A', cr: '9020', amount: '60000' },
    { dr: '9120', cr: '2910', amount: '25000' },
    { dr: '5110', cr: '4010/A', amount: '50000' },
    { dr: '9040', cr: '4010/A', amount: '2000' },
    { dr: '5110', cr: '4010/B', amount: '15000' },
    { dr: '6410', cr: '5110', amount: '3000' },
    { dr: '9420', cr: '0230', amount: '2000' },
    { dr: '9420', cr: '6710', amount: '8000' },
    { dr: '6710', cr: '5110', amount: '6000' },
    { dr: '5210', cr: '9540', amount: '1000' },
    { dr: '9610', cr: '6920', amount: '500' },
    { dr: '9430', cr: '4910', amount: '1000' },
    { dr: '9810', cr: '6410', amount: '4000' },
    { dr: '8610', cr: '5110', amount: '2000' },
    { dr: '5110', cr: '8720', amount: '5000' },
    { dr: '9720', cr: '2910', amount: '1000' },
  ];

  const expectRows = (values: Map<string, bigint | null>, expected: Record<string, string>) => {
    const actual = Object.fromEntries(Object.keys(expected).map((code) => [code, values.get(code)]));
    expect(actual).toEqual(Object.fromEntries(Object.entries(expected).map(([code, amount]) => [code, uzs(amount.replace('-', '')) * (amount.startsWith('-') ? -1n : 1n)])));
  };

  test('Form 1 balances, with the unclosed result in retained earnings and each customer on its own side', () => {
    const values = evaluateStatement(FORM_1, amountsOf(entries, { bySubaccount: true }));
    expectRows(values, {
      '010': '30000',
      '011': '2000',
      '012': '28000',
      '130': '28000',
      '180': '14000',
      '220': '7000', // A owes 8000, less the 1000 allowance; B's advance is not netted against it
      '260': '10000', // the advance to a supplier and the overpaid supplier
      '270': '0', // 6410 is a payable after the accrual
      '210': '17000',
      '340': '79000',
      '350': '1000',
      '320': '80000',
      '390': '111000',
      '400': '139000',
      '410': '100000',
      '440': '2000',
      '450': '22500', // 5000 brought forward + 17500 result of the period, not yet closed
      '480': '120500',
      '610': '0',
      '670': '15000',
      '680': '1000',
      '720': '2000',
      '760': '500',
      '600': '18500',
      '601': '18500',
      '770': '18500',
      '780': '139000',
    });
    expect(values.get('H.A')).toBeNull();
    expect(values.get('211')).toBeNull();
  });

  test('with amounts per account instead of per customer, the two customers net and the form still balances', () => {
    const values = evaluateStatement(FORM_1, amountsOf(entries, { bySubaccount: false }));
    expectRows(values, { '220': '-1000', '670': '7000', '400': '131000', '780': '131000' });
  });

  test('after the year-end close into 9910 and 8710, Form 1 is the same', () => {
    const closed = [...entries, ...closingEntries(entries)];
    const before = evaluateStatement(FORM_1, amountsOf(entries, { bySubaccount: true }));
    const after = evaluateStatement(FORM_1, amountsOf(closed, { bySubaccount: true }));
    expect(after).toEqual(before);
  });

  test("Form 2's rows, and its net profit equals income less expenses of 9000–9899, closing entries left out", () => {
    const closed = [...entries, ...closingEntries(entries)];
    const amounts = amountsOf(closed, { bySubaccount: false, withoutClosing: true });
    const values = evaluateStatement(FORM_2, amounts);
    expectRows(values, {
      '010': '58000',
      '020': '25000',
      '030': '33000',
      '040': '11000',
      '050': '0',
      '060': '10000',
      '070': '1000',
      '090': '0',
      '100': '22000',
      '110': '1000',
      '150': '1000',
      '170': '500',
      '180': '500',
      '190': '0',
      '220': '22500',
      '230': '-1000',
      '240': '21500',
      '250': '4000',
      '260': '0',
      '270': '17500',
    });
    const net = amounts.filter((a) => a.accountCode >= '9000' && a.accountCode <= '9899').reduce((sum, a) => sum + a.credit - a.debit, 0n);
    expect(values.get('270')).toBe(net);
    // With the closing entries counted, every income and expense account nets to zero: why they are left out.
    expect(evaluateStatement(FORM_2, amountsOf(closed, { bySubaccount: false })).get('270')).toBe(0n);
  });
});

describe('any balanced ledger', () => {
  const code = fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0'));
  const entry = fc.record({ dr: code, cr: code, sub: fc.constantFrom('', '/a', '/b'), amount: fc.bigInt({ min: 1n, max: 10n ** 12n }) });

  test('Form 1: total assets (400) equal total liabilities and equity (780)', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 40 }), fc.boolean(), (list, bySubaccount) => {
        const totals = new Map<string, { debit: bigint; credit: bigint }>();
        for (const e of list) {
          for (const [key, debit, credit] of [[e.dr + e.sub, e.amount, 0n], [e.cr + e.sub, 0n, e.amount]] as const) {
            const k = bySubaccount ? key : key.slice(0, 4);
            const t = totals.get(k) ?? { debit: 0n, credit: 0n };
            totals.set(k, { debit: t.debit + debit, credit: t.credit + credit });
          }
        }
        const values = evaluateStatement(FORM_1, [...totals].map(([k, t]) => ({ accountCode: k.slice(0, 4), ...t })));
        expect(values.get('400')).toBe(values.get('780'));
      }),
      { numRuns: 300 },
    );
  });

  test('Form 2: net profit (270) is the net credit of the accounts 9000–9899', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 40 }), (list) => {
        const amounts = list.flatMap((e) => [
          { accountCode: e.dr, debit: e.amount, credit: 0n },
          { accountCode: e.cr, debit: 0n, credit: e.amount },
        ]);
        const expected = amounts.filter((a) => a.accountCode >= '9000' && a.accountCode <= '9899').reduce((s, a) => s + a.credit - a.debit, 0n);
        expect(evaluateStatement(FORM_2, amounts).get('270')).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
