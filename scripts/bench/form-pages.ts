/**
 * The snapshot benchmark's form pages: one page per seed, of one of the kinds real sites put
 * forms on (sign-up, checkout, address, survey, settings, search filters, job application, bank
 * transfer), in English or Chinese, with the structures of form-pages.ts's fields plus sections
 * (fieldsets, headings), multi-column grids, inputs in tables (a notification matrix, an
 * order's lines), hidden conditional sections and hidden inputs, a step indicator, page chrome.
 *
 * Seeds are split so the snapshot is never tuned on the pages it is judged by: DEV_SEEDS are the
 * pages to look at while changing the snapshot, HELD_OUT_SEEDS are only measured (the benchmark
 * reports both, as two sets). The same seed gives the same bytes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FieldSpec, type FieldTexts, FieldWriter } from './form-fields';
import { page, rng, Writer } from './snapshot-pages';

export const DEV_SEEDS = { from: 1, to: 24 } as const;
export const HELD_OUT_SEEDS = { from: 1001, to: 1024 } as const;

type Lang = 'en' | 'zh';

/** A few real names first (what a model looks for), then made-up ones up to a real list's size. */
function countries(w: Writer): string[] {
  const real = [
    'Argentina',
    'Australia',
    'Austria',
    'Belgium',
    'Brazil',
    'Canada',
    'Chile',
    'China',
    'Denmark',
    'Egypt',
    'Finland',
    'France',
    'Germany',
    'India',
    'Ireland',
    'Italy',
    'Japan',
    'Kenya',
    'Mexico',
    'Netherlands',
    'Norway',
    'Poland',
    'Portugal',
    'Spain',
    'Sweden',
    'Switzerland',
    'United Kingdom',
    'United States',
  ];
  const made = Array.from({ length: w.int(150, 220) }, () => {
    const t = w.words(1, 2);
    return t[0].toUpperCase() + t.slice(1);
  });
  return [...real, ...made].sort();
}

const EN_TEXTS = (w: Writer): FieldTexts => ({
  help: (label) =>
    w.pick([
      `We use your ${label.toLowerCase()} only to contact you.`,
      `${w.title()} ${w.words(3, 8)}.`,
      'Must be at least 8 characters.',
      'Optional.',
      `Enter it as it appears on your ${w.pick(['card', 'passport', 'bill'])}.`,
    ]),
  error: (label) =>
    w.pick([
      `Please enter a valid ${label.toLowerCase()}.`,
      `${label} is required.`,
      'This value is too short.',
    ]),
  required: 'required',
  choose: w.pick(['Select…', 'Choose one', '-- Please select --']),
});

const ZH_TEXTS = (w: Writer): FieldTexts => ({
  help: () => w.pick(['我们只会用它联系您。', '选填。', '至少 8 个字符。', '请与证件上的一致。']),
  error: (label) => w.pick([`请输入有效的${label}。`, `${label}为必填项。`, '格式不正确。']),
  required: '必填',
  choose: '请选择',
});

/** [english, chinese] labels. */
type L = readonly [string, string];
const f = (label: L, kind: FieldSpec['kind'], options?: readonly L[], sample?: string) => ({
  label,
  kind,
  options,
  sample,
});
type Vocab = ReturnType<typeof f>;

const YES_NO: readonly L[] = [
  ['Yes', '是'],
  ['No', '否'],
];
const RATING: readonly L[] = [
  ['Very satisfied', '非常满意'],
  ['Satisfied', '满意'],
  ['Neutral', '一般'],
  ['Dissatisfied', '不满意'],
  ['Very dissatisfied', '非常不满意'],
];

const PERSON: Vocab[] = [
  f(['First name', '名'], 'text', undefined, 'Ada'),
  f(['Last name', '姓'], 'text', undefined, 'Lovelace'),
  f(['Email address', '电子邮件'], 'email', undefined, 'ada@example.com'),
  f(['Phone number', '电话号码'], 'tel', undefined, '+1 555 0100'),
];
const ADDRESS: Vocab[] = [
  f(['Street address', '街道地址'], 'text', undefined, '12 Main Street'),
  f(['Apartment, suite, etc.', '门牌号'], 'text'),
  f(['City', '城市'], 'text', undefined, 'Springfield'),
  f(['State / Province', '省份'], 'combobox', [
    ['Ontario', '广东'],
    ['Quebec', '浙江'],
    ['Alberta', '江苏'],
    ['Manitoba', '四川'],
  ]),
  f(['Postal code', '邮政编码'], 'text', undefined, '90210'),
  f(['Country', '国家/地区'], 'country'),
];

const KINDS: Record<string, { title: L; sections: { title: L; fields: Vocab[] }[] }> = {
  signup: {
    title: ['Create your account', '创建账户'],
    sections: [
      {
        title: ['About you', '个人信息'],
        fields: [...PERSON, f(['Date of birth', '出生日期'], 'date')],
      },
      {
        title: ['Security', '账户安全'],
        fields: [
          f(['Username', '用户名'], 'text'),
          f(['Password', '密码'], 'password'),
          f(['Confirm password', '确认密码'], 'password'),
        ],
      },
      {
        title: ['Preferences', '偏好'],
        fields: [
          f(['Gender', '性别'], 'radios', [
            ['Female', '女'],
            ['Male', '男'],
            ['Non-binary', '其他'],
            ['Prefer not to say', '不愿透露'],
          ]),
          f(['Interests', '兴趣'], 'checkboxes', [
            ['Sports', '运动'],
            ['Music', '音乐'],
            ['Travel', '旅行'],
            ['Technology', '科技'],
            ['Cooking', '烹饪'],
          ]),
          f(['Send me the newsletter', '订阅新闻邮件'], 'switch'),
          f(['I agree to the Terms of Service', '我同意服务条款'], 'checkbox'),
        ],
      },
    ],
  },
  checkout: {
    title: ['Checkout', '结算'],
    sections: [
      { title: ['Contact', '联系方式'], fields: [PERSON[2], PERSON[3]] },
      { title: ['Shipping address', '收货地址'], fields: [PERSON[0], PERSON[1], ...ADDRESS] },
      {
        title: ['Delivery', '配送方式'],
        fields: [
          f(['Shipping method', '配送方式'], 'radios', [
            ['Standard (5–7 days) $4.99', '标准配送 ¥10'],
            ['Express (2 days) $14.99', '快递 ¥25'],
            ['Pick up in store', '到店自取'],
          ]),
        ],
      },
      {
        title: ['Payment', '支付'],
        fields: [
          f(['Name on card', '持卡人姓名'], 'text'),
          f(['Card number', '卡号'], 'text', undefined, '4242 4242 4242 4242'),
          f(['Expiration (MM/YY)', '有效期'], 'month'),
          f(['Security code', '安全码'], 'password'),
          f(['Billing address same as shipping', '账单地址与收货地址相同'], 'checkbox'),
          f(['Promo code', '优惠码'], 'text'),
          f(['Order notes', '订单备注'], 'textarea'),
        ],
      },
    ],
  },
  address: {
    title: ['Edit address', '编辑地址'],
    sections: [
      { title: ['Recipient', '收件人'], fields: [PERSON[0], PERSON[1], PERSON[3]] },
      { title: ['Address', '地址'], fields: ADDRESS },
      {
        title: ['Options', '选项'],
        fields: [
          f(['Address type', '地址类型'], 'radios', [
            ['Home', '住宅'],
            ['Work', '公司'],
            ['Other', '其他'],
          ]),
          f(['Make this my default address', '设为默认地址'], 'checkbox'),
          f(['Delivery instructions', '配送说明'], 'textarea'),
        ],
      },
    ],
  },
  survey: {
    title: ['Customer survey', '客户调查'],
    sections: [
      {
        title: ['Your visit', '您的到访'],
        fields: [
          f(['Date of visit', '到访日期'], 'date'),
          f(['How satisfied were you overall?', '总体满意度如何？'], 'radios', RATING),
          f(['How satisfied were you with our staff?', '对员工满意吗？'], 'radios', RATING),
          f(['Would you recommend us?', '您会推荐我们吗？'], 'radios', YES_NO),
          f(['How likely are you to return? (0–100)', '再次光临的可能性'], 'range'),
        ],
      },
      {
        title: ['About you', '关于您'],
        fields: [
          f(['Age group', '年龄段'], 'select', [
            ['Under 18', '18 岁以下'],
            ['18–24', '18–24'],
            ['25–34', '25–34'],
            ['35–44', '35–44'],
            ['45–54', '45–54'],
            ['55–64', '55–64'],
            ['65 or older', '65 岁及以上'],
          ]),
          f(['What did you buy?', '您购买了什么？'], 'checkboxes', [
            ['Clothing', '服装'],
            ['Shoes', '鞋'],
            ['Accessories', '配饰'],
            ['Home goods', '家居'],
            ['Electronics', '电子产品'],
            ['Nothing', '没有购买'],
          ]),
          f(['Anything else you want to tell us?', '其他意见'], 'editable'),
          PERSON[2],
        ],
      },
    ],
  },
  settings: {
    title: ['Settings', '设置'],
    sections: [
      {
        title: ['Profile', '个人资料'],
        fields: [
          f(['Display name', '显示名称'], 'text', undefined, 'ada'),
          f(['Bio', '个人简介'], 'textarea'),
          f(['Website', '网站'], 'url', undefined, 'https://example.com'),
          f(['Profile photo', '头像'], 'file'),
          f(['Accent color', '主题色'], 'color'),
        ],
      },
      {
        title: ['Preferences', '偏好设置'],
        fields: [
          f(['Language', '语言'], 'select', [
            ['English', 'English'],
            ['Deutsch', 'Deutsch'],
            ['Español', 'Español'],
            ['Français', 'Français'],
            ['日本語', '日本語'],
            ['简体中文', '简体中文'],
          ]),
          f(['Time zone', '时区'], 'combobox', [
            ['UTC', 'UTC'],
            ['Europe/Paris', 'Asia/Shanghai'],
            ['America/New_York', 'Asia/Tokyo'],
          ]),
          f(['Dark mode', '深色模式'], 'switch'),
          f(['Autoplay videos', '自动播放视频'], 'switch'),
          f(['Show my activity status', '显示在线状态'], 'switch'),
          f(['Font size', '字体大小'], 'range'),
          f(['Theme', '主题'], 'listbox', [
            ['System', '跟随系统'],
            ['Light', '浅色'],
            ['Dark', '深色'],
            ['High contrast', '高对比度'],
          ]),
        ],
      },
    ],
  },
  filters: {
    title: ['Search homes', '搜索房源'],
    sections: [
      {
        title: ['Filters', '筛选'],
        fields: [
          f(['Location', '位置'], 'search', undefined, 'Berlin'),
          f(['Check-in', '入住日期'], 'date'),
          f(['Check-out', '退房日期'], 'date'),
          f(['Guests', '人数'], 'number', undefined, '2'),
          f(['Minimum price', '最低价格'], 'number'),
          f(['Maximum price', '最高价格'], 'number'),
          f(['Property type', '房源类型'], 'checkboxes', [
            ['House', '独栋'],
            ['Apartment', '公寓'],
            ['Guesthouse', '民宿'],
            ['Hotel', '酒店'],
          ]),
          f(['Amenities', '设施'], 'multiselect', [
            ['Wifi', '无线网络'],
            ['Kitchen', '厨房'],
            ['Washer', '洗衣机'],
            ['Free parking', '免费停车'],
            ['Pool', '泳池'],
            ['Air conditioning', '空调'],
            ['Workspace', '工作区'],
          ]),
          f(['Sort by', '排序'], 'select', [
            ['Relevance', '相关度'],
            ['Price: low to high', '价格从低到高'],
            ['Price: high to low', '价格从高到低'],
            ['Rating', '评分'],
          ]),
          f(['Instant book', '即时预订'], 'switch'),
        ],
      },
    ],
  },
  job: {
    title: ['Apply for this job', '申请职位'],
    sections: [
      { title: ['Personal information', '个人信息'], fields: [...PERSON, ADDRESS[5]] },
      {
        title: ['Experience', '工作经历'],
        fields: [
          f(['Resume / CV', '简历'], 'file'),
          f(['Cover letter', '求职信'], 'editable'),
          f(['LinkedIn profile', '领英主页'], 'url'),
          f(['Years of experience', '工作年限'], 'number'),
          f(['Earliest start date', '最早入职日期'], 'date'),
          f(['Desired salary', '期望薪资'], 'number'),
          f(
            ['Are you authorized to work in this country?', '您是否有工作许可？'],
            'radios',
            YES_NO,
          ),
          f(['Will you require sponsorship?', '是否需要签证担保？'], 'radios', YES_NO),
          f(['How did you hear about us?', '您从哪里得知这个职位？'], 'select', [
            ['Job board', '招聘网站'],
            ['Referral', '内部推荐'],
            ['Company website', '公司官网'],
            ['Social media', '社交媒体'],
            ['Other', '其他'],
          ]),
        ],
      },
      {
        title: ['Voluntary self-identification', '自愿信息'],
        fields: [
          f(['Veteran status', '退伍军人身份'], 'radios', [
            ['I am a veteran', '是'],
            ['I am not a veteran', '否'],
            ['I decline to answer', '不愿回答'],
          ]),
          f(['I certify that the information above is true', '我保证以上信息真实'], 'checkbox'),
        ],
      },
    ],
  },
  transfer: {
    title: ['Transfer money', '转账'],
    sections: [
      {
        title: ['From', '转出账户'],
        fields: [
          f(['From account', '转出账户'], 'select', [
            ['Checking ••••4821 — $2,340.18', '活期 ••••4821 — ¥23,401.80'],
            ['Savings ••••1177 — $12,004.00', '储蓄 ••••1177 — ¥120,040.00'],
          ]),
        ],
      },
      {
        title: ['To', '收款人'],
        fields: [
          f(['Recipient name', '收款人姓名'], 'text'),
          f(['IBAN', '账号'], 'text', undefined, 'DE89 3704 0044 0532 0130 00'),
          f(['BIC / SWIFT', '银行代码'], 'text'),
          f(['Recipient bank country', '收款银行所在国家'], 'country'),
          f(['Save as a payee', '保存为常用收款人'], 'checkbox'),
        ],
      },
      {
        title: ['Payment', '转账信息'],
        fields: [
          f(['Amount', '金额'], 'number', undefined, '250'),
          f(['Currency', '币种'], 'select', [
            ['EUR', 'CNY'],
            ['USD', 'USD'],
            ['GBP', 'EUR'],
            ['CHF', 'JPY'],
          ]),
          f(['Transfer date', '转账日期'], 'date'),
          f(['Repeat', '重复'], 'radios', [
            ['Once', '一次'],
            ['Weekly', '每周'],
            ['Monthly', '每月'],
          ]),
          f(['Reference', '附言'], 'text'),
          f(['Time', '时间'], 'time'),
        ],
      },
    ],
  },
};

function spec(v: Vocab, lang: Lang, w: Writer, countryList: string[]): FieldSpec {
  const i = lang === 'en' ? 0 : 1;
  return {
    label: v.label[i],
    kind: v.kind,
    options: v.kind === 'country' ? countryList : v.options?.map((o) => o[i]),
    sample: v.sample ?? (v.kind === 'number' ? String(w.int(1, 999)) : undefined),
  };
}

/** A notification matrix or an order's lines: controls in table cells. */
function table(w: Writer, fw: FieldWriter, lang: Lang): string {
  if (w.int(0, 1) === 0) {
    const channels = lang === 'en' ? ['Email', 'SMS', 'Push'] : ['邮件', '短信', '推送'];
    const topics =
      lang === 'en'
        ? ['Order updates', 'Promotions', 'Security alerts', 'Product news', 'Reminders']
        : ['订单更新', '促销活动', '安全提醒', '产品动态', '提醒事项'];
    const named = w.int(0, 1) === 0;
    const rows = topics
      .map(
        (t) =>
          `<tr><th scope="row">${t}</th>${channels.map((c) => `<td><input type="checkbox"${named ? ` aria-label="${t} — ${c}"` : ''}${w.int(0, 1) ? ' checked' : ''}></td>`).join('')}</tr>`,
      )
      .join('');
    return fw.wrap(
      `<table class="matrix"><thead><tr><th></th>${channels.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table>`,
    );
  }
  const rows = Array.from({ length: w.int(2, 6) }, () => {
    const item = w.title();
    return `<tr><td>${item}</td><td>$${w.int(1, 300)}.${w.int(10, 99)}</td><td><input type="number" min="0" value="${w.int(1, 4)}" aria-label="${lang === 'en' ? 'Quantity' : '数量'}" class="qty"></td><td><button type="button" class="link">${lang === 'en' ? 'Remove' : '删除'}</button></td></tr>`;
  }).join('');
  const head = lang === 'en' ? ['Item', 'Price', 'Qty', ''] : ['商品', '价格', '数量', ''];
  return `<table class="cart"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table>`;
}

function formPage(seed: number): { name: string; html: string } {
  const w = new Writer(rng(seed * 7919 + 13));
  const kinds = Object.keys(KINDS);
  const kind = kinds[(seed + w.int(0, kinds.length - 1)) % kinds.length];
  const lang: Lang = w.int(0, 4) === 0 ? 'zh' : 'en';
  const texts = lang === 'en' ? EN_TEXTS(w) : ZH_TEXTS(w);
  const fw = new FieldWriter(w, texts, `s${seed}f`);
  const countryList = countries(w);
  const def = KINDS[kind];
  const i = lang === 'en' ? 0 : 1;
  const sections = def.sections.map((s, k) => {
    const fields = s.fields
      .filter(() => w.int(0, 9) > 0)
      .map((v) => fw.field(spec(v, lang, w, countryList)));
    const grid = w.int(0, 2) === 0;
    const body = grid
      ? `<div class="row" style="display:grid;grid-template-columns:1fr 1fr;gap:12px">${fields.join('\n')}</div>`
      : fields.join('\n');
    const table_ = k === def.sections.length - 1 && w.int(0, 2) === 0 ? table(w, fw, lang) : '';
    return w.int(0, 1) === 0
      ? `<fieldset class="section"><legend>${s.title[i]}</legend>${body}${table_}</fieldset>`
      : `<section class="card"><h2>${s.title[i]}</h2>${w.int(0, 1) ? `<p class="muted">${w.sentence()}</p>` : ''}${body}${table_}</section>`;
  });
  // Conditional parts a user has not opened: never to be shown.
  const hiddenFields = [
    `<input type="hidden" name="csrf" value="${w.int(0, 1e9)}">`,
    `<div class="conditional" hidden>${fw.field({ label: lang === 'en' ? 'Company name' : '公司名称', kind: 'text' })}</div>`,
    `<div style="display:none">${fw.field({ label: lang === 'en' ? 'VAT number' : '税号', kind: 'text' })}</div>`,
  ]
    .filter(() => w.int(0, 1) === 0)
    .join('');
  const steps =
    w.int(0, 1) === 0
      ? `<ol class="steps">${(lang === 'en' ? ['Details', 'Review', 'Done'] : ['填写', '确认', '完成']).map((s, k) => `<li${k === 0 ? ' aria-current="step"' : ''}>${s}</li>`).join('')}</ol>`
      : '';
  const buttons =
    lang === 'en'
      ? `<button type="submit" class="btn btn-primary">${w.pick(['Continue', 'Submit', 'Save changes', 'Place order'])}</button> <button type="button" class="btn">${w.pick(['Cancel', 'Back'])}</button>`
      : '<button type="submit" class="btn btn-primary">提交</button> <button type="button" class="btn">取消</button>';
  const links = Array.from({ length: w.int(3, 8) }, () => w.link()).join(' ');
  const body = `<header class="top"><a href="/" class="logo">${w.title()}</a><nav aria-label="Main">${links}</nav></header>
<main><div class="container">${steps}<h1>${def.title[i]}</h1>${w.int(0, 1) ? `<p class="lead">${w.sentence()}</p>` : ''}
<form action="/submit" method="post" novalidate>${sections.join('\n')}${hiddenFields}<div class="actions">${buttons}</div></form></div></main>
<footer>${Array.from({ length: w.int(2, 6) }, () => w.link()).join(' · ')}</footer>`;
  const style =
    '<style>body{font:14px sans-serif;margin:0 24px}.form-check-inline{display:inline-block;margin-right:8px}.switch{width:36px;height:20px}.list{list-style:none;border:1px solid #ccc;padding:0}.editor{min-height:60px;border:1px solid #ccc}</style>';
  const html = page(def.title[i], body, style).replace('<html lang="en">', `<html lang="${lang}">`);
  return { name: `${String(seed).padStart(4, '0')}-${kind}${lang === 'zh' ? '-zh' : ''}`, html };
}

/** The pages of seeds from..to: [file name, html]. */
export function generateFormPages(seeds: { from: number; to: number }): Map<string, string> {
  const files = new Map<string, string>();
  for (let s = seeds.from; s <= seeds.to; s++) {
    const { name, html } = formPage(s);
    files.set(`${name}.html`, html);
  }
  return files;
}

export function writeFormPages(dir: string, seeds: { from: number; to: number }): string[] {
  mkdirSync(dir, { recursive: true });
  const files = generateFormPages(seeds);
  for (const [name, html] of files) writeFileSync(join(dir, name), html);
  return [...files.keys()].sort();
}
