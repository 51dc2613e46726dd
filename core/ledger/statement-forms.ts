// The two national financial statements of Uzbekistan as data: Form No. 1 "Balance sheet" at a date and
// Form No. 2 "Statement of financial results" for a period, each a list of rows with the official row codes,
// the NAS 21 accounts a row is read from and the formulas between rows. Where each mapping comes from, and
// every choice made where the sources are silent or disagree, is in docs/statement-templates.md.

/**
 * How a range of accounts gives a row its amount. Form 1 reads balances at the date (the cumulative debit
 * and credit of each account up to and including it); Form 2 reads the period's turnovers.
 */
export type BalanceRule =
  /** Debit − credit at the date (Form 1). */
  | 'DEBIT_BALANCE'
  /** Credit − debit at the date (Form 1). */
  | 'CREDIT_BALANCE'
  /** Debit − credit of each amount where that is above zero; the other amounts count nothing (Form 1). */
  | 'DEBIT_BALANCE_IF_POSITIVE'
  /** Credit − debit of each amount where that is above zero; the other amounts count nothing (Form 1). */
  | 'CREDIT_BALANCE_IF_POSITIVE'
  /** The period's debit turnover (Form 2). */
  | 'DEBIT_TURNOVER'
  /** The period's credit turnover (Form 2). */
  | 'CREDIT_TURNOVER'
  /** Credit − debit turnover in the period: income rows (Form 2). */
  | 'NET_CREDIT'
  /** Debit − credit turnover in the period: expense rows (Form 2). */
  | 'NET_DEBIT';

/** Accounts `from`…`to` inclusive (four-digit codes, compared as text, which is numeric order for them). */
export interface AccountRange {
  from: string;
  to: string;
  rule: BalanceRule;
  /** Counts the range with the opposite sign. */
  negate?: boolean;
}

/**
 * One line of a form. A row has `accounts` (its amount is read from the ledger) or `formula` (its amount is
 * computed from other rows: row codes joined by + and -), never both. A row with neither has no amount: a
 * heading (its code is not a three-digit row code) or an official row that balances cannot fill (the
 * overdue parts of receivables and payables, which need an ageing of the documents; `note` says so).
 */
export interface TemplateRow {
  code: string;
  name: string;
  nameUz?: string;
  nameRu?: string;
  accounts?: AccountRange[];
  formula?: string;
  /** A total or subtotal, printed in bold. */
  total?: boolean;
  /**
   * Form 2 prints two amount columns, income (profit) and expenses (losses): INCOME and EXPENSE rows go to
   * their column as a positive amount; a RESULT row goes to income when it is a profit and to expenses, as its
   * absolute value, when it is a loss.
   */
  column?: 'INCOME' | 'EXPENSE' | 'RESULT';
  note?: string;
}

export interface StatementTemplate {
  form: 'FORM_1' | 'FORM_2';
  version: string;
  effectiveFrom: string;
  title: string;
  source: string;
  rows: TemplateRow[];
}

const REGULATION =
  'Order of the Minister of Finance of the Republic of Uzbekistan No. 140 of 27 December 2002 "On approval of the forms of ' +
  'financial statements and the rules for completing them" (registered by the Ministry of Justice on 24 January 2003, No. 1209), ' +
  'as amended; the latest amendment established: Order No. 68 of 11 September 2012 (registered 11 October 2012, No. 1209-5, ' +
  'in force 21 October 2012). Official text: https://lex.uz (registration No. 1209); the amendment: ' +
  'https://nrm.uz/contentf?doc=276595_prikaz_ministra_finansov_ot_11_09_2012_g_n_68_o_vnesenii_izmeneniy_i_dopolneniy_v_prikaz_' +
  'ob_utverjdenii_form_finansovoy_otchetnosti_i_pravil_po_ih_zapolneniyu_(zaregistrirovan_myu_11_10_2012_g_n_1209-5)';

// Form 1 reads every four-digit code from 0000 to 9999 exactly once on one side (or, for a settlement account
// that can be on either side, once on each side through an *_IF_POSITIVE pair), so total assets equal total
// liabilities and equity for every balanced ledger, custom accounts included. Codes outside the NAS 21 groups
// take a neighbouring row (docs/statement-templates.md lists them).

const dr = (from: string, to: string): AccountRange => ({ from, to, rule: 'DEBIT_BALANCE' });
const cr = (from: string, to: string): AccountRange => ({ from, to, rule: 'CREDIT_BALANCE' });
/** The asset half of a settlement account that is shown on the side its balance is on. */
const drIf = (from: string, to: string): AccountRange => ({ from, to, rule: 'DEBIT_BALANCE_IF_POSITIVE' });
/** The liability half of the same. */
const crIf = (from: string, to: string): AccountRange => ({ from, to, rule: 'CREDIT_BALANCE_IF_POSITIVE' });

const OVERDUE = 'Not derivable from balances: the overdue part needs the ageing of the documents, so it is filled from the receivables or payables register.';

export const FORM_1: StatementTemplate = {
  form: 'FORM_1',
  version: 'MF-140/1209-5',
  effectiveFrom: '2012-10-21',
  title: 'Balance sheet (Form No. 1)',
  source: `${REGULATION}. Annex 1, Form No. 1 "Buxgalteriya balansi" / "Бухгалтерский баланс".`,
  rows: [
    { code: 'H.A', name: 'ASSETS', nameRu: 'АКТИВ', nameUz: 'AKTIV' },
    { code: 'H.A.I', name: 'I. Long-term assets', nameRu: 'I. Долгосрочные активы', nameUz: 'I. Uzoq muddatli aktivlar' },
    { code: 'H.A.I.FA', name: 'Fixed assets:', nameRu: 'Основные средства:', nameUz: 'Asosiy vositalar:' },
    {
      code: '010',
      name: 'Initial (replacement) cost (0100, 0300)',
      nameRu: 'Первоначальная (восстановительная) стоимость (0100, 0300)',
      nameUz: "Boshlang'ich (qayta tiklash) qiymati (0100, 0300)",
      accounts: [dr('0000', '0199'), dr('0300', '0399')],
    },
    { code: '011', name: 'Depreciation (0200)', nameRu: 'Сумма износа (0200)', nameUz: 'Eskirish summasi (0200)', accounts: [cr('0200', '0299')] },
    {
      code: '012',
      name: 'Residual (carrying) amount (010-011)',
      nameRu: 'Остаточная (балансовая) стоимость (стр. 010-011)',
      nameUz: 'Qoldiq (balans) qiymati (010-011-satrlar)',
      formula: '010-011',
      total: true,
    },
    { code: 'H.A.I.IA', name: 'Intangible assets:', nameRu: 'Нематериальные активы:', nameUz: 'Nomoddiy aktivlar:' },
    { code: '020', name: 'Initial cost (0400)', nameRu: 'Первоначальная стоимость (0400)', nameUz: "Boshlang'ich qiymati (0400)", accounts: [dr('0400', '0499')] },
    { code: '021', name: 'Amortisation (0500)', nameRu: 'Сумма амортизации (0500)', nameUz: 'Amortizatsiya summasi (0500)', accounts: [cr('0500', '0599')] },
    {
      code: '022',
      name: 'Residual (carrying) amount (020-021)',
      nameRu: 'Остаточная (балансовая) стоимость (стр. 020-021)',
      nameUz: 'Qoldiq (balans) qiymati (020-021-satrlar)',
      formula: '020-021',
      total: true,
    },
    {
      code: '030',
      name: 'Long-term investments, total (040+050+060+070+080), including:',
      nameRu: 'Долгосрочные инвестиции, всего (стр. 040+050+060+070+080), в том числе:',
      nameUz: 'Uzoq muddatli investitsiyalar, jami (040+050+060+070+080-satrlar), shu jumladan:',
      formula: '040+050+060+070+080',
      total: true,
    },
    { code: '040', name: 'Securities (0610)', nameRu: 'Ценные бумаги (0610)', nameUz: "Qimmatli qog'ozlar (0610)", accounts: [dr('0610', '0619')] },
    {
      code: '050',
      name: 'Investments in subsidiaries (0620)',
      nameRu: 'Инвестиции в дочерние хозяйственные общества (0620)',
      nameUz: "Sho'ba xo'jalik jamiyatlariga investitsiyalar (0620)",
      accounts: [dr('0620', '0629')],
    },
    {
      code: '060',
      name: 'Investments in associates (0630)',
      nameRu: 'Инвестиции в зависимые хозяйственные общества (0630)',
      nameUz: "Qaram xo'jalik jamiyatlariga investitsiyalar (0630)",
      accounts: [dr('0630', '0639')],
    },
    {
      code: '070',
      name: 'Investments in enterprises with foreign capital (0640)',
      nameRu: 'Инвестиции в предприятия с иностранным капиталом (0640)',
      nameUz: "Chet el kapitali mavjud bo'lgan korxonalarga investitsiyalar (0640)",
      accounts: [dr('0640', '0649')],
    },
    {
      code: '080',
      name: 'Other long-term investments (0690)',
      nameRu: 'Прочие долгосрочные инвестиции (0690)',
      nameUz: 'Boshqa uzoq muddatli investitsiyalar (0690)',
      accounts: [dr('0600', '0609'), dr('0650', '0699')],
    },
    { code: '090', name: 'Equipment for installation (0700)', nameRu: 'Оборудование к установке (0700)', nameUz: "O'rnatiladigan asbob-uskunalar (0700)", accounts: [dr('0700', '0799')] },
    { code: '100', name: 'Capital investments (0800)', nameRu: 'Капитальные вложения (0800)', nameUz: "Kapital qo'yilmalar (0800)", accounts: [dr('0800', '0899')] },
    {
      code: '110',
      name: 'Long-term receivables (0910, 0920, 0930, 0940)',
      nameRu: 'Долгосрочная дебиторская задолженность (0910, 0920, 0930, 0940)',
      nameUz: 'Uzoq muddatli debitorlik qarzlari (0910, 0920, 0930, 0940)',
      accounts: [dr('0900', '0949')],
    },
    { code: '111', name: 'of which overdue', nameRu: 'из нее: просроченная', nameUz: "shundan: muddati o'tgan", note: OVERDUE },
    {
      code: '120',
      name: 'Long-term deferred expenses (0950, 0960, 0990)',
      nameRu: 'Долгосрочные отсроченные расходы (0950, 0960, 0990)',
      nameUz: 'Uzoq muddatli kechiktirilgan xarajatlar (0950, 0960, 0990)',
      accounts: [dr('0950', '0999')],
      note: 'The form puts 0950 and 0960 here, although the chart names them long-term receivables; followed as printed (the section total is the same).',
    },
    {
      code: '130',
      name: 'Total for section I (012+022+030+090+100+110+120)',
      nameRu: 'Итого по разделу I (стр. 012+022+030+090+100+110+120)',
      nameUz: "I bo'lim bo'yicha jami (012+022+030+090+100+110+120-satrlar)",
      formula: '012+022+030+090+100+110+120',
      total: true,
    },
    { code: 'H.A.II', name: 'II. Current assets', nameRu: 'II. Текущие активы', nameUz: 'II. Joriy aktivlar' },
    {
      code: '140',
      name: 'Inventories, total (150+160+170+180), including:',
      nameRu: 'Товарно-материальные запасы, всего (стр. 150+160+170+180), в том числе:',
      nameUz: 'Tovar-moddiy zaxiralar, jami (150+160+170+180-satrlar), shu jumladan:',
      formula: '150+160+170+180',
      total: true,
    },
    {
      code: '150',
      name: 'Production inventories (1000, 1100, 1500, 1600)',
      nameRu: 'Производственные запасы (1000, 1100, 1500, 1600)',
      nameUz: 'Ishlab chiqarish zaxiralari (1000, 1100, 1500, 1600)',
      accounts: [dr('1000', '1999')],
    },
    {
      code: '160',
      name: 'Work in progress (2000, 2100, 2300, 2700)',
      nameRu: 'Незавершенное производство (2000, 2100, 2300, 2700)',
      nameUz: 'Tugallanmagan ishlab chiqarish (2000, 2100, 2300, 2700)',
      accounts: [dr('2000', '2799')],
      note: 'Also 2500 and 2600 (overheads and defects not yet allocated at the date): they are costs of production in progress.',
    },
    { code: '170', name: 'Finished goods (2800)', nameRu: 'Готовая продукция (2800)', nameUz: 'Tayyor mahsulot (2800)', accounts: [dr('2800', '2899')] },
    {
      code: '180',
      name: 'Goods (2900 less 2980)',
      nameRu: 'Товары (2900 за минусом 2980)',
      nameUz: 'Tovarlar (2900 dan 2980 ning ayirmasi)',
      // The net debit of the range: the trade markup's credit balance on 2980 is subtracted by itself.
      accounts: [dr('2900', '2999')],
    },
    { code: '190', name: 'Prepaid expenses (3100)', nameRu: 'Расходы будущих периодов (3100)', nameUz: 'Kelgusi davr xarajatlari (3100)', accounts: [dr('3000', '3199')] },
    { code: '200', name: 'Deferred expenses (3200)', nameRu: 'Отсроченные расходы (3200)', nameUz: 'Kechiktirilgan xarajatlar (3200)', accounts: [dr('3200', '3999')] },
    {
      code: '210',
      name: 'Debtors, total (220+240+250+260+270+280+290+300+310)',
      nameRu: 'Дебиторы, всего (стр. 220+240+250+260+270+280+290+300+310)',
      nameUz: 'Debitorlar, jami (220+240+250+260+270+280+290+300+310-satrlar)',
      formula: '220+240+250+260+270+280+290+300+310',
      total: true,
    },
    { code: '211', name: 'of which overdue', nameRu: 'из нее: просроченная', nameUz: "shundan: muddati o'tgan", note: OVERDUE },
    {
      code: '220',
      name: 'Receivables from buyers and customers (4000 less 4900)',
      nameRu: 'Задолженность покупателей и заказчиков (4000 за минусом 4900)',
      nameUz: 'Xaridor va buyurtmachilarning qarzi (4000 dan 4900 ning ayirmasi)',
      accounts: [drIf('4000', '4099'), dr('4900', '4999'), drIf('6300', '6319')],
    },
    {
      code: '230',
      name: 'Receivables from separate subdivisions (4110)',
      nameRu: 'Задолженность обособленных подразделений (4110)',
      nameUz: "Ajratilgan bo'linmalarning qarzi (4110)",
      accounts: [drIf('4100', '4119'), drIf('6100', '6119')],
    },
    {
      code: '240',
      name: 'Receivables from subsidiaries and associates (4120)',
      nameRu: 'Задолженность дочерних и зависимых хозяйственных обществ (4120)',
      nameUz: "Sho'ba va qaram xo'jalik jamiyatlarining qarzi (4120)",
      accounts: [drIf('4120', '4199'), drIf('6120', '6199')],
    },
    {
      code: '250',
      name: 'Advances paid to personnel (4200)',
      nameRu: 'Авансы, выданные персоналу (4200)',
      nameUz: "Xodimlarga berilgan bo'naklar (4200)",
      accounts: [drIf('4200', '4299'), drIf('6700', '6799'), drIf('6970', '6979')],
    },
    {
      code: '260',
      name: 'Advances paid to suppliers and contractors (4300)',
      nameRu: 'Авансы, выданные поставщикам и подрядчикам (4300)',
      nameUz: "Mol yetkazib beruvchilar va pudratchilarga berilgan bo'naklar (4300)",
      accounts: [drIf('4300', '4399'), drIf('6000', '6099')],
    },
    {
      code: '270',
      name: 'Advance payments of taxes and levies to the budget (4400)',
      nameRu: 'Авансовые платежи по налогам и сборам в бюджет (4400)',
      nameUz: "Budjetga soliqlar va yig'imlar bo'yicha bo'nak to'lovlari (4400)",
      accounts: [drIf('4400', '4499'), drIf('6400', '6499')],
    },
    {
      code: '280',
      name: 'Advance payments to state target funds and for insurance (4500)',
      nameRu: 'Авансовые платежи в государственные целевые фонды и по страхованию (4500)',
      nameUz: "Maqsadli davlat jamg'armalari va sug'urtalar bo'yicha bo'nak to'lovlari (4500)",
      accounts: [drIf('4500', '4599'), drIf('6500', '6599')],
    },
    {
      code: '290',
      name: "Founders' debts on contributions to the charter capital (4600)",
      nameRu: 'Задолженность учредителей по вкладам в уставный капитал (4600)',
      nameUz: "Ta'sischilarning ustav kapitaliga ulushlar bo'yicha qarzi (4600)",
      accounts: [drIf('4600', '4699'), drIf('6320', '6329')],
    },
    {
      code: '300',
      name: 'Personnel debts on other operations (4700)',
      nameRu: 'Задолженность персонала по прочим операциям (4700)',
      nameUz: "Xodimlarning boshqa operatsiyalar bo'yicha qarzi (4700)",
      accounts: [drIf('4700', '4799')],
    },
    {
      code: '310',
      name: 'Other receivables (4800)',
      nameRu: 'Прочие дебиторские задолженности (4800)',
      nameUz: 'Boshqa debitorlik qarzlari (4800)',
      accounts: [drIf('4800', '4899'), drIf('6330', '6399'), drIf('6600', '6699'), drIf('6900', '6949'), drIf('6960', '6969'), drIf('6980', '6999')],
    },
    {
      code: '320',
      name: 'Cash, total (330+340+350+360), including:',
      nameRu: 'Денежные средства, всего (стр. 330+340+350+360), в том числе:',
      nameUz: "Pul mablag'lari, jami (330+340+350+360-satrlar), shu jumladan:",
      formula: '330+340+350+360',
      total: true,
    },
    { code: '330', name: 'Cash on hand (5000)', nameRu: 'Денежные средства в кассе (5000)', nameUz: "Kassadagi pul mablag'lari (5000)", accounts: [dr('5000', '5099')] },
    {
      code: '340',
      name: 'Cash in the settlement account (5100)',
      nameRu: 'Денежные средства на расчетном счете (5100)',
      nameUz: "Hisob-kitob schyotidagi pul mablag'lari (5100)",
      accounts: [dr('5100', '5199')],
    },
    {
      code: '350',
      name: 'Cash in foreign currency (5200)',
      nameRu: 'Денежные средства в иностранной валюте (5200)',
      nameUz: "Chet el valyutasidagi pul mablag'lari (5200)",
      accounts: [dr('5200', '5299')],
    },
    {
      code: '360',
      name: 'Other cash and cash equivalents (5500, 5600, 5700)',
      nameRu: 'Прочие денежные средства и эквиваленты (5500, 5600, 5700)',
      nameUz: "Boshqa pul mablag'lari va ekvivalentlari (5500, 5600, 5700)",
      accounts: [dr('5300', '5799')],
    },
    { code: '370', name: 'Short-term investments (5800)', nameRu: 'Краткосрочные инвестиции (5800)', nameUz: 'Qisqa muddatli investitsiyalar (5800)', accounts: [dr('5800', '5899')] },
    { code: '380', name: 'Other current assets (5900)', nameRu: 'Прочие текущие активы (5900)', nameUz: 'Boshqa joriy aktivlar (5900)', accounts: [dr('5900', '5999')] },
    {
      code: '390',
      name: 'Total for section II (140+190+200+210+230+320+370+380)',
      nameRu: 'Итого по разделу II (стр. 140+190+200+210+230+320+370+380)',
      nameUz: "II bo'lim bo'yicha jami (140+190+200+210+230+320+370+380-satrlar)",
      formula: '140+190+200+210+230+320+370+380',
      total: true,
    },
    {
      code: '400',
      name: 'Total assets (130+390)',
      nameRu: 'Всего по активу баланса (стр. 130+390)',
      nameUz: "Balans aktivi bo'yicha jami (130+390-satrlar)",
      formula: '130+390',
      total: true,
    },
    { code: 'H.P', name: 'LIABILITIES AND EQUITY', nameRu: 'ПАССИВ', nameUz: 'PASSIV' },
    { code: 'H.P.I', name: 'I. Sources of own funds', nameRu: 'I. Источники собственных средств', nameUz: "I. O'z mablag'lari manbalari" },
    { code: '410', name: 'Charter capital (8300)', nameRu: 'Уставный капитал (8300)', nameUz: 'Ustav kapitali (8300)', accounts: [cr('8300', '8399')] },
    { code: '420', name: 'Added capital (8400)', nameRu: 'Добавленный капитал (8400)', nameUz: "Qo'shilgan kapital (8400)", accounts: [cr('8400', '8499')] },
    { code: '430', name: 'Reserve capital (8500)', nameRu: 'Резервный капитал (8500)', nameUz: 'Zaxira kapitali (8500)', accounts: [cr('8500', '8599')] },
    {
      code: '440',
      name: 'Treasury shares repurchased (8600)',
      nameRu: 'Выкупленные собственные акции (8600)',
      nameUz: 'Sotib olingan xususiy aksiyalar (8600)',
      // A debit balance, shown as a positive amount and subtracted in 480.
      accounts: [dr('8600', '8699')],
    },
    {
      code: '450',
      name: 'Retained earnings (uncovered loss) (8700)',
      nameRu: 'Нераспределенная прибыль (непокрытый убыток) (8700)',
      nameUz: 'Taqsimlanmagan foyda (qoplanmagan zarar) (8700)',
      // Income and expense accounts not yet closed to 9910 and 9910 not yet closed to 8710 are the result
      // not yet transferred: counted here, the balance sheet balances at any date, closed or not.
      accounts: [cr('8700', '8799'), cr('9000', '9999')],
      note: 'Includes the net credit of 9000–9999: the result of the period not yet closed into 8710.',
    },
    { code: '460', name: 'Targeted receipts (8800)', nameRu: 'Целевые поступления (8800)', nameUz: 'Maqsadli tushumlar (8800)', accounts: [cr('8800', '8899')] },
    {
      code: '470',
      name: 'Reserves for future expenses and payments (8900)',
      nameRu: 'Резервы предстоящих расходов и платежей (8900)',
      nameUz: "Kelgusi davr xarajatlari va to'lovlari uchun zaxiralar (8900)",
      accounts: [cr('8900', '8999')],
    },
    {
      code: '480',
      name: 'Total for section I (410+420+430-440+450+460+470)',
      nameRu: 'Итого по разделу I (стр. 410+420+430-440+450+460+470)',
      nameUz: "I bo'lim bo'yicha jami (410+420+430-440+450+460+470-satrlar)",
      formula: '410+420+430-440+450+460+470',
      total: true,
    },
    { code: 'H.P.II', name: 'II. Liabilities', nameRu: 'II. Обязательства', nameUz: 'II. Majburiyatlar' },
    {
      code: '490',
      name: 'Long-term liabilities, total (500+510+520+530+540+550+560+570+580+590)',
      nameRu: 'Долгосрочные обязательства, всего (стр. 500+510+520+530+540+550+560+570+580+590)',
      nameUz: "Uzoq muddatli majburiyatlar, jami (500+510+520+530+540+550+560+570+580+590-satrlar)",
      formula: '500+510+520+530+540+550+560+570+580+590',
      total: true,
    },
    {
      code: '491',
      name: 'including: long-term payables (500+520+540+560+590)',
      nameRu: 'в том числе: долгосрочная кредиторская задолженность (стр. 500+520+540+560+590)',
      nameUz: "shu jumladan: uzoq muddatli kreditorlik qarzlari (500+520+540+560+590-satrlar)",
      formula: '500+520+540+560+590',
      total: true,
    },
    { code: '492', name: 'of which overdue long-term payables', nameRu: 'из нее: просроченная долгосрочная кредиторская задолженность', nameUz: "shundan: muddati o'tgan uzoq muddatli kreditorlik qarzlari", note: OVERDUE },
    {
      code: '500',
      name: 'Long-term payables to suppliers and contractors (7000)',
      nameRu: 'Долгосрочная задолженность поставщикам и подрядчикам (7000)',
      nameUz: "Mol yetkazib beruvchilar va pudratchilarga uzoq muddatli qarz (7000)",
      accounts: [cr('7000', '7099')],
    },
    {
      code: '510',
      name: 'Long-term payables to separate subdivisions (7110)',
      nameRu: 'Долгосрочная задолженность обособленным подразделениям (7110)',
      nameUz: "Ajratilgan bo'linmalarga uzoq muddatli qarz (7110)",
      accounts: [cr('7100', '7119')],
    },
    {
      code: '520',
      name: 'Long-term payables to subsidiaries and associates (7120)',
      nameRu: 'Долгосрочная задолженность дочерним и зависимым хозяйственным обществам (7120)',
      nameUz: "Sho'ba va qaram xo'jalik jamiyatlariga uzoq muddatli qarz (7120)",
      accounts: [cr('7120', '7199')],
    },
    {
      code: '530',
      name: 'Long-term deferred income (7210, 7220, 7230)',
      nameRu: 'Долгосрочные отсроченные доходы (7210, 7220, 7230)',
      nameUz: 'Uzoq muddatli kechiktirilgan daromadlar (7210, 7220, 7230)',
      accounts: [cr('7200', '7239')],
    },
    {
      code: '540',
      name: 'Long-term deferred liabilities for taxes and mandatory payments (7240)',
      nameRu: 'Долгосрочные отсроченные обязательства по налогам и обязательным платежам (7240)',
      nameUz: "Soliqlar va majburiy to'lovlar bo'yicha uzoq muddatli kechiktirilgan majburiyatlar (7240)",
      accounts: [cr('7240', '7249')],
    },
    {
      code: '550',
      name: 'Other long-term deferred liabilities (7250, 7290)',
      nameRu: 'Прочие долгосрочные отсроченные обязательства (7250, 7290)',
      nameUz: 'Boshqa uzoq muddatli kechiktirilgan majburiyatlar (7250, 7290)',
      accounts: [cr('7250', '7299')],
    },
    {
      code: '560',
      name: 'Advances received from buyers and customers (7300)',
      nameRu: 'Авансы, полученные от покупателей и заказчиков (7300)',
      nameUz: "Xaridorlar va buyurtmachilardan olingan bo'naklar (7300)",
      accounts: [cr('7300', '7399')],
    },
    { code: '570', name: 'Long-term bank loans (7810)', nameRu: 'Долгосрочные банковские кредиты (7810)', nameUz: 'Uzoq muddatli bank kreditlari (7810)', accounts: [cr('7800', '7819')] },
    {
      code: '580',
      name: 'Long-term borrowings (7820, 7830, 7840)',
      nameRu: 'Долгосрочные займы (7820, 7830, 7840)',
      nameUz: 'Uzoq muddatli qarzlar (7820, 7830, 7840)',
      accounts: [cr('7820', '7899')],
    },
    {
      code: '590',
      name: 'Other long-term payables (7900)',
      nameRu: 'Прочие долгосрочные кредиторские задолженности (7900)',
      nameUz: 'Boshqa uzoq muddatli kreditorlik qarzlari (7900)',
      accounts: [cr('7400', '7799'), cr('7900', '8299')],
    },
    {
      code: '600',
      name: 'Current liabilities, total (610+620+630+640+650+660+670+680+690+700+710+720+730+740+750+760)',
      nameRu: 'Текущие обязательства, всего (стр. 610+620+630+640+650+660+670+680+690+700+710+720+730+740+750+760)',
      nameUz: "Joriy majburiyatlar, jami (610+620+630+640+650+660+670+680+690+700+710+720+730+740+750+760-satrlar)",
      formula: '610+620+630+640+650+660+670+680+690+700+710+720+730+740+750+760',
      total: true,
    },
    {
      code: '601',
      name: 'including: current payables (610+630+650+670+680+690+700+710+720+760)',
      nameRu: 'в том числе: текущая кредиторская задолженность (стр. 610+630+650+670+680+690+700+710+720+760)',
      nameUz: "shu jumladan: joriy kreditorlik qarzlari (610+630+650+670+680+690+700+710+720+760-satrlar)",
      formula: '610+630+650+670+680+690+700+710+720+760',
      total: true,
    },
    { code: '602', name: 'of which overdue current payables', nameRu: 'из нее: просроченная текущая кредиторская задолженность', nameUz: "shundan: muddati o'tgan joriy kreditorlik qarzlari", note: OVERDUE },
    {
      code: '610',
      name: 'Payables to suppliers and contractors (6000)',
      nameRu: 'Задолженность поставщикам и подрядчикам (6000)',
      nameUz: "Mol yetkazib beruvchilar va pudratchilarga qarz (6000)",
      accounts: [crIf('6000', '6099'), crIf('4300', '4399')],
    },
    {
      code: '620',
      name: 'Payables to separate subdivisions (6110)',
      nameRu: 'Задолженность обособленным подразделениям (6110)',
      nameUz: "Ajratilgan bo'linmalarga qarz (6110)",
      accounts: [crIf('6100', '6119'), crIf('4100', '4119')],
    },
    {
      code: '630',
      name: 'Payables to subsidiaries and associates (6120)',
      nameRu: 'Задолженность дочерним и зависимым хозяйственным обществам (6120)',
      nameUz: "Sho'ba va qaram xo'jalik jamiyatlariga qarz (6120)",
      accounts: [crIf('6120', '6199'), crIf('4120', '4199')],
    },
    {
      code: '640',
      name: 'Deferred income (6210, 6220, 6230)',
      nameRu: 'Отсроченные доходы (6210, 6220, 6230)',
      nameUz: 'Kechiktirilgan daromadlar (6210, 6220, 6230)',
      accounts: [cr('6200', '6239')],
    },
    {
      code: '650',
      name: 'Deferred liabilities for taxes and mandatory payments (6240)',
      nameRu: 'Отсроченные обязательства по налогам и обязательным платежам (6240)',
      nameUz: "Soliqlar va majburiy to'lovlar bo'yicha kechiktirilgan majburiyatlar (6240)",
      accounts: [cr('6240', '6249')],
    },
    {
      code: '660',
      name: 'Other deferred liabilities (6250, 6290)',
      nameRu: 'Прочие отсроченные обязательства (6250, 6290)',
      nameUz: 'Boshqa kechiktirilgan majburiyatlar (6250, 6290)',
      accounts: [cr('6250', '6299')],
    },
    {
      code: '670',
      name: 'Advances received (6300)',
      nameRu: 'Полученные авансы (6300)',
      nameUz: "Olingan bo'naklar (6300)",
      accounts: [crIf('6300', '6399'), crIf('4000', '4099')],
    },
    {
      code: '680',
      name: 'Payables to the budget (6400)',
      nameRu: 'Задолженность по платежам в бюджет (6400)',
      nameUz: "Budjetga to'lovlar bo'yicha qarz (6400)",
      accounts: [crIf('6400', '6499'), crIf('4400', '4499')],
    },
    {
      code: '690',
      name: 'Payables for insurance (6510)',
      nameRu: 'Задолженность по страхованию (6510)',
      nameUz: "Sug'urtalar bo'yicha qarz (6510)",
      accounts: [crIf('6500', '6519'), crIf('4500', '4519')],
    },
    {
      code: '700',
      name: 'Payables to state target funds (6520)',
      nameRu: 'Задолженность по платежам в государственные целевые фонды (6520)',
      nameUz: "Maqsadli davlat jamg'armalariga to'lovlar bo'yicha qarz (6520)",
      accounts: [crIf('6520', '6599'), crIf('4520', '4599')],
    },
    {
      code: '710',
      name: 'Payables to founders (6600)',
      nameRu: 'Задолженность учредителям (6600)',
      nameUz: "Ta'sischilarga bo'lgan qarzlar (6600)",
      accounts: [crIf('6600', '6699'), crIf('4600', '4699')],
    },
    {
      code: '720',
      name: 'Payroll payables (6700)',
      nameRu: 'Задолженность по оплате труда (6700)',
      nameUz: "Mehnatga haq to'lash bo'yicha qarz (6700)",
      accounts: [crIf('6700', '6799'), crIf('4200', '4219')],
    },
    { code: '730', name: 'Short-term bank loans (6810)', nameRu: 'Краткосрочные банковские кредиты (6810)', nameUz: 'Qisqa muddatli bank kreditlari (6810)', accounts: [cr('6800', '6819')] },
    {
      code: '740',
      name: 'Short-term borrowings (6820, 6830, 6840)',
      nameRu: 'Краткосрочные займы (6820, 6830, 6840)',
      nameUz: 'Qisqa muddatli qarzlar (6820, 6830, 6840)',
      accounts: [cr('6820', '6899')],
    },
    {
      code: '750',
      name: 'Current portion of long-term liabilities (6950)',
      nameRu: 'Текущая часть долгосрочных обязательств (6950)',
      nameUz: 'Uzoq muddatli majburiyatlarning joriy qismi (6950)',
      accounts: [cr('6950', '6959')],
    },
    {
      code: '760',
      name: 'Other payables (6900 except 6950)',
      nameRu: 'Прочие кредиторские задолженности (6900 кроме 6950)',
      nameUz: 'Boshqa kreditorlik qarzlari (6950 dan tashqari 6900)',
      accounts: [crIf('6900', '6949'), crIf('6960', '6999'), crIf('4220', '4299'), crIf('4700', '4799'), crIf('4800', '4899')],
    },
    {
      code: '770',
      name: 'Total for section II (490+600)',
      nameRu: 'Итого по разделу II (стр. 490+600)',
      nameUz: "II bo'lim bo'yicha jami (490+600-satrlar)",
      formula: '490+600',
      total: true,
    },
    {
      code: '780',
      name: 'Total liabilities and equity (480+770)',
      nameRu: 'Всего по пассиву баланса (стр. 480+770)',
      nameUz: "Balans passivi bo'yicha jami (480+770-satrlar)",
      formula: '480+770',
      total: true,
    },
  ],
};

// Form 2 reads the turnovers of 9000–9899 in the period, each account in exactly one row; 9900–9999 (the
// final financial result) is where those accounts are closed, so it is not read. The turnovers must leave out
// the closing entries (those with a line on 9900–9999), or every income and expense row would net to zero.

const netCredit = (from: string, to: string): AccountRange => ({ from, to, rule: 'NET_CREDIT' });
const netDebit = (from: string, to: string): AccountRange => ({ from, to, rule: 'NET_DEBIT' });

export const FORM_2: StatementTemplate = {
  form: 'FORM_2',
  version: 'MF-140/1209-5',
  effectiveFrom: '2012-10-21',
  title: 'Statement of financial results (Form No. 2)',
  source: `${REGULATION}. Annex 2, Form No. 2 "Moliyaviy natijalar to'g'risidagi hisobot" / "Отчет о финансовых результатах".`,
  rows: [
    {
      code: '010',
      name: 'Net revenue from sales of products (goods, work and services)',
      nameRu: 'Чистая выручка от реализации продукции (товаров, работ и услуг)',
      nameUz: 'Mahsulot (tovar, ish va xizmat)larni sotishdan sof tushum',
      // Net: the returns (9040) and discounts (9050) are debits of the same group.
      accounts: [netCredit('9000', '9099')],
      column: 'INCOME',
    },
    {
      code: '020',
      name: 'Cost of products (goods, work and services) sold',
      nameRu: 'Себестоимость реализованной продукции (товаров, работ и услуг)',
      nameUz: 'Sotilgan mahsulot (tovar, ish va xizmat)larning tannarxi',
      accounts: [netDebit('9100', '9199')],
      column: 'EXPENSE',
    },
    {
      code: '030',
      name: 'Gross profit (loss) from sales of products (goods, work and services) (010-020)',
      nameRu: 'Валовая прибыль (убыток) от реализации продукции (товаров, работ и услуг) (стр. 010-020)',
      nameUz: 'Mahsulot (tovar, ish va xizmat)larni sotishning yalpi foydasi (zarari) (010-020-satrlar)',
      formula: '010-020',
      total: true,
      column: 'RESULT',
    },
    {
      code: '040',
      name: 'Period expenses, total (050+060+070+080), including:',
      nameRu: 'Расходы периода, всего (стр. 050+060+070+080), в том числе:',
      nameUz: 'Davr xarajatlari, jami (050+060+070+080-satrlar), shu jumladan:',
      formula: '050+060+070+080',
      total: true,
      column: 'EXPENSE',
    },
    { code: '050', name: 'Selling expenses', nameRu: 'Расходы по реализации', nameUz: 'Sotish xarajatlari', accounts: [netDebit('9400', '9419')], column: 'EXPENSE' },
    { code: '060', name: 'Administrative expenses', nameRu: 'Административные расходы', nameUz: "Ma'muriy xarajatlar", accounts: [netDebit('9420', '9429')], column: 'EXPENSE' },
    { code: '070', name: 'Other operating expenses', nameRu: 'Прочие операционные расходы', nameUz: 'Boshqa operatsion xarajatlar', accounts: [netDebit('9430', '9439')], column: 'EXPENSE' },
    {
      code: '080',
      name: 'Expenses of the reporting period deductible from the taxable base in the future',
      nameRu: 'Расходы отчетного периода, вычитаемые из налогооблагаемой базы в будущем',
      nameUz: 'Kelgusida soliq solinadigan bazadan chiqariladigan hisobot davri xarajatlari',
      accounts: [netDebit('9440', '9499')],
      column: 'EXPENSE',
    },
    {
      code: '090',
      name: 'Other income from core activities',
      nameRu: 'Прочие доходы от основной деятельности',
      nameUz: 'Asosiy faoliyatning boshqa daromadlari',
      // 9200 (disposals) is normally closed to 9310/9320 or 9430 within the period; what is left on it is a
      // disposal result not yet transferred, and it belongs here with the gains it would be transferred to.
      accounts: [netCredit('9200', '9399')],
      column: 'INCOME',
    },
    {
      code: '100',
      name: 'Profit (loss) from core activities (030-040+090)',
      nameRu: 'Прибыль (убыток) от основной деятельности (стр. 030-040+090)',
      nameUz: 'Asosiy faoliyatning foydasi (zarari) (030-040+090-satrlar)',
      formula: '030-040+090',
      total: true,
      column: 'RESULT',
    },
    {
      code: '110',
      name: 'Income from financial activities, total (120+130+140+150+160), including:',
      nameRu: 'Доходы от финансовой деятельности, всего (стр. 120+130+140+150+160), в том числе:',
      nameUz: 'Moliyaviy faoliyatning daromadlari, jami (120+130+140+150+160-satrlar), shu jumladan:',
      formula: '120+130+140+150+160',
      total: true,
      column: 'INCOME',
    },
    { code: '120', name: 'Dividend income', nameRu: 'Доходы в виде дивидендов', nameUz: 'Dividendlar shaklidagi daromadlar', accounts: [netCredit('9520', '9529')], column: 'INCOME' },
    { code: '130', name: 'Interest income', nameRu: 'Доходы в виде процентов', nameUz: 'Foizlar shaklidagi daromadlar', accounts: [netCredit('9530', '9539')], column: 'INCOME' },
    {
      code: '140',
      name: 'Income from long-term lease (leasing)',
      nameRu: 'Доходы от долгосрочной аренды (лизинга)',
      nameUz: 'Uzoq muddatli ijara (lizing)dan daromadlar',
      accounts: [netCredit('9550', '9559')],
      column: 'INCOME',
    },
    { code: '150', name: 'Foreign exchange gains', nameRu: 'Доходы от валютных курсовых разниц', nameUz: 'Valyuta kursi farqidan daromadlar', accounts: [netCredit('9540', '9549')], column: 'INCOME' },
    {
      code: '160',
      name: 'Other income from financial activities',
      nameRu: 'Прочие доходы от финансовой деятельности',
      nameUz: 'Moliyaviy faoliyatning boshqa daromadlari',
      // Royalties (9510) have no row of their own.
      accounts: [netCredit('9500', '9519'), netCredit('9560', '9599')],
      column: 'INCOME',
    },
    {
      code: '170',
      name: 'Expenses on financial activities (180+190+200+210), including:',
      nameRu: 'Расходы по финансовой деятельности (стр. 180+190+200+210), в том числе:',
      nameUz: "Moliyaviy faoliyat bo'yicha xarajatlar (180+190+200+210-satrlar), shu jumladan:",
      formula: '180+190+200+210',
      total: true,
      column: 'EXPENSE',
    },
    { code: '180', name: 'Interest expenses', nameRu: 'Расходы в виде процентов', nameUz: 'Foizlar shaklidagi xarajatlar', accounts: [netDebit('9610', '9619')], column: 'EXPENSE' },
    {
      code: '190',
      name: 'Interest expenses on long-term lease (leasing)',
      nameRu: 'Расходы в виде процентов по долгосрочной аренде (лизингу)',
      nameUz: "Uzoq muddatli ijara (lizing) bo'yicha foizlar shaklidagi xarajatlar",
      accounts: [],
      column: 'EXPENSE',
      note: 'NAS 21 has no account of its own for lease interest: it is booked on 9610 and shown in 180. Always zero here.',
    },
    { code: '200', name: 'Foreign exchange losses', nameRu: 'Убытки от валютных курсовых разниц', nameUz: 'Valyuta kursi farqidan zararlar', accounts: [netDebit('9620', '9629')], column: 'EXPENSE' },
    {
      code: '210',
      name: 'Other expenses on financial activities',
      nameRu: 'Прочие расходы по финансовой деятельности',
      nameUz: "Moliyaviy faoliyat bo'yicha boshqa xarajatlar",
      accounts: [netDebit('9600', '9609'), netDebit('9630', '9699')],
      column: 'EXPENSE',
    },
    {
      code: '220',
      name: 'Profit (loss) from general economic activities (100+110-170)',
      nameRu: 'Прибыль (убыток) от общехозяйственной деятельности (стр. 100+110-170)',
      nameUz: "Umumxo'jalik faoliyatining foydasi (zarari) (100+110-170-satrlar)",
      formula: '100+110-170',
      total: true,
      column: 'RESULT',
    },
    {
      code: '230',
      name: 'Extraordinary gains and losses',
      nameRu: 'Чрезвычайные прибыли и убытки',
      nameUz: 'Favqulodda foyda va zararlar',
      // Signed: gains (9710) less losses (9720).
      accounts: [netCredit('9700', '9799')],
      column: 'RESULT',
    },
    {
      code: '240',
      name: 'Profit (loss) before income tax (220+/-230)',
      nameRu: 'Прибыль (убыток) до уплаты налога на доходы (прибыль) (стр. 220+/-230)',
      nameUz: "Daromad (foyda) solig'ini to'lagunga qadar foyda (zarar) (220+/-230-satrlar)",
      formula: '220+230',
      total: true,
      column: 'RESULT',
    },
    { code: '250', name: 'Income (profit) tax', nameRu: 'Налог на доходы (прибыль)', nameUz: "Daromad (foyda) solig'i", accounts: [netDebit('9800', '9819')], column: 'EXPENSE' },
    {
      code: '260',
      name: 'Other taxes and levies on profit',
      nameRu: 'Прочие налоги и сборы от прибыли',
      nameUz: "Foydadan boshqa soliqlar va yig'imlar",
      accounts: [netDebit('9820', '9899')],
      column: 'EXPENSE',
    },
    {
      code: '270',
      name: 'Net profit (loss) of the reporting period (240-250-260)',
      nameRu: 'Чистая прибыль (убыток) отчетного периода (стр. 240-250-260)',
      nameUz: 'Hisobot davrining sof foydasi (zarari) (240-250-260-satrlar)',
      formula: '240-250-260',
      total: true,
      column: 'RESULT',
    },
  ],
};

/** The version of a form in effect on a date: the latest effective on or before it (the first one before any). */
export function templateOn(form: 'FORM_1' | 'FORM_2', date: string): StatementTemplate {
  const versions = (form === 'FORM_1' ? [FORM_1] : [FORM_2]).sort((a, b) => (a.effectiveFrom < b.effectiveFrom ? 1 : -1));
  return versions.find((t) => t.effectiveFrom <= date) ?? versions[versions.length - 1]!;
}
