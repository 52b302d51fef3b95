/**
 * The demo shop's products. Several USB-C cables at different prices (some above $10), plus
 * decoys a careless agent could pick: a cheaper cable that is not USB-C, USB-C things that are not
 * cables. The cheapest USB-C cable under $10 is exactly one product (`TARGET_PRODUCT_ID`).
 */

export interface Product {
  id: string;
  name: string;
  /** Price in cents (no floating point in the cart). */
  priceCents: number;
  category: 'Cables' | 'Chargers' | 'Accessories' | 'Computer';
  blurb: string;
  /** Extra words the search matches besides the name. */
  keywords: string[];
}

export const PRODUCTS: readonly Product[] = [
  {
    id: 'volta-c2c-1m',
    name: 'Volta USB-C to USB-C Cable, 1 m',
    priceCents: 1299,
    category: 'Cables',
    blurb: '60 W charging and USB 3.2 data. Aluminium plugs, TPE jacket.',
    keywords: ['usb c', 'type-c', 'charging cable'],
  },
  {
    id: 'basix-c-2m',
    name: 'Basix USB-C Charging Cable, 2 m',
    priceCents: 849,
    category: 'Cables',
    blurb: 'A long, simple USB-C cable for charging phones and tablets (USB 2.0 data).',
    keywords: ['usb c', 'type-c', 'charging cable'],
  },
  {
    id: 'linkwire-c-braided',
    name: 'Linkwire Braided USB-C Cable, 0.5 m',
    priceCents: 679,
    category: 'Cables',
    blurb: 'Short braided USB-C to USB-C cable for power banks and desks. 60 W.',
    keywords: ['usb c', 'type-c', 'charging cable'],
  },
  {
    id: 'volta-c-lightning',
    name: 'Volta USB-C to Lightning Cable, 1 m',
    priceCents: 1499,
    category: 'Cables',
    blurb: 'Fast-charge an iPhone from any USB-C charger. MFi certified.',
    keywords: ['usb c', 'type-c', 'iphone'],
  },
  {
    id: 'powerflow-c-240w',
    name: 'PowerFlow 240 W USB-C Cable, 2 m',
    priceCents: 1999,
    category: 'Cables',
    blurb: 'USB PD 3.1 EPR: charges even the biggest laptops. E-marker chip.',
    keywords: ['usb c', 'type-c', 'laptop'],
  },
  {
    id: 'basix-c2a-1m',
    name: 'Basix USB-C to USB-A Cable, 1 m',
    priceCents: 929,
    category: 'Cables',
    blurb: 'Connect USB-C phones to older chargers and computers.',
    keywords: ['usb c', 'type-c', 'usb a'],
  },
  {
    id: 'basix-micro-1m',
    name: 'Basix Micro-USB Cable, 1 m',
    priceCents: 399,
    category: 'Cables',
    blurb: 'For older phones, e-readers and headphones. Not USB-C.',
    keywords: ['micro usb', 'charging cable'],
  },
  {
    id: 'clearview-hdmi-2m',
    name: 'Clearview HDMI 2.1 Cable, 2 m',
    priceCents: 799,
    category: 'Cables',
    blurb: '8K at 60 Hz, 4K at 120 Hz.',
    keywords: ['hdmi', 'tv'],
  },
  {
    id: 'volta-charger-30w',
    name: 'Volta 30 W USB-C Wall Charger',
    priceCents: 1899,
    category: 'Chargers',
    blurb: 'Compact GaN charger with one USB-C port. Cable not included.',
    keywords: ['usb c', 'type-c', 'charger', 'power adapter'],
  },
  {
    id: 'linkwire-hub-7in1',
    name: 'Linkwire 7-in-1 USB-C Hub',
    priceCents: 3499,
    category: 'Computer',
    blurb: 'HDMI, 3 × USB-A, SD, microSD and 100 W pass-through charging.',
    keywords: ['usb c', 'type-c', 'dock', 'adapter'],
  },
  {
    id: 'quill-mouse',
    name: 'Quill Wireless Mouse',
    priceCents: 1850,
    category: 'Computer',
    blurb: 'Silent clicks, 18-month battery.',
    keywords: ['mouse', 'bluetooth'],
  },
  {
    id: 'tilt-stand',
    name: 'Tilt Aluminium Laptop Stand',
    priceCents: 2900,
    category: 'Accessories',
    blurb: 'Six heights, folds flat.',
    keywords: ['stand', 'desk'],
  },
  {
    id: 'pocket-ssd-1tb',
    name: 'Pocket SSD 1 TB (USB-C)',
    priceCents: 8900,
    category: 'Computer',
    blurb: '1,050 MB/s portable drive. Short USB-C cable included.',
    keywords: ['usb c', 'type-c', 'storage', 'drive'],
  },
];

/** What the task asks for, computed from the catalog rather than hard-coded. */
export function isUsbCCable(p: Product): boolean {
  return p.category === 'Cables' && /\bUSB-C\b/.test(p.name) && /\bCable\b/.test(p.name);
}

export const TARGET_PRODUCT_ID: string = (() => {
  const under = PRODUCTS.filter((p) => isUsbCCable(p) && p.priceCents < 1000).sort(
    (a, b) => a.priceCents - b.priceCents,
  );
  if (!under.length) throw new Error('demo catalog: no USB-C cable under $10');
  return under[0].id;
})();

export function productById(id: string): Product | undefined {
  return PRODUCTS.find((p) => p.id === id);
}

export function formatPrice(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/** Every query word must appear in the name, category or keywords ("usb-c cable", "USB C cables"). */
export function searchProducts(query: string): Product[] {
  const norm = (s: string) => s.toLowerCase().replace(/[-_]/g, ' ').replace(/\s+/g, ' ');
  const words = norm(query)
    .replace(/\b(usb) (c)\b/g, 'usbc')
    .split(' ')
    .filter(Boolean)
    .map((w) => w.replace(/s$/, ''));
  if (!words.length) return [...PRODUCTS];
  return PRODUCTS.filter((p) => {
    const hay = norm([p.name, p.category, ...p.keywords].join(' ')).replace(
      /\b(usb) (c)\b/g,
      'usbc',
    );
    return words.every((w) => hay.includes(w));
  });
}
