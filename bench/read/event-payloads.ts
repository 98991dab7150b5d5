// What the tracker would put in `payload` for each action: about 200 bytes of JSON, nested a
// little, with the numbers and short strings front-end code typically sends.
import type { SeededRandom } from './seeded-random.js';

type Payload = Record<string, unknown>;
type Page = { path: string; title: string };

const ELEMENTS = [
  'button#start-trial',
  'a.nav-link[href="/pricing"]',
  'button.add-seat',
  'a#docs-cta',
  'div.card > a.read-more',
];
const TEXTS = ['Start your free trial', 'See pricing', 'Add a seat', 'Read the docs', 'Read more'];
const FORMS = ['newsletter', 'contact-sales', 'signup', 'search'];

const builders: Record<string, (rng: SeededRandom, page: Page) => Payload> = {
  pageview: (rng, page) => ({
    title: page.title,
    path: page.path,
    lang: 'en-GB',
    tz: 'Europe/Berlin',
    viewport: {
      width: rng.pick([390, 1280, 1440, 1920]),
      height: rng.pick([844, 800, 900, 1080]),
      dpr: rng.pick([1, 2, 3]),
    },
    load_ms: rng.between(180, 2400),
    visible: true,
  }),
  click: (rng, page) => {
    const i = rng.int(ELEMENTS.length);
    return {
      element: ELEMENTS[i],
      text: TEXTS[i],
      page: page.path,
      section: rng.pick(['hero', 'nav', 'footer', 'pricing-table']),
      position: { x: rng.between(0, 1440), y: rng.between(0, 3000) },
      experiment: { id: 'cta-copy-2026', variant: rng.pick(['A', 'B']) },
    };
  },
  scroll: (rng, page) => {
    const depth = rng.between(10, 100) / 100;
    return {
      page: page.path,
      depth,
      max_depth: Math.max(depth, rng.between(50, 100) / 100),
      direction: rng.pick(['down', 'up']),
      viewport_height: rng.pick([844, 900, 1080]),
      elapsed_ms: rng.between(500, 90_000),
      sections_seen: rng.between(1, 8),
    };
  },
  form_submit: (rng, page) => ({
    form: rng.pick(FORMS),
    page: page.path,
    fields: ['email', 'name', 'company'],
    valid: rng.next() > 0.1,
    elapsed_ms: rng.between(3_000, 120_000),
    attempt: rng.between(1, 3),
    source: 'inline',
  }),
  add_to_cart: (rng, page) => ({
    sku: `SKU-${String(rng.between(1, 500)).padStart(5, '0')}`,
    name: 'Team plan (annual)',
    price: rng.pick([99, 299, 1188]),
    currency: 'EUR',
    quantity: rng.between(1, 5),
    page: page.path,
    list: rng.pick(['pricing-table', 'product-page']),
  }),
  checkout: (rng) => ({
    order_id: `ord_${rng.uuid4().slice(0, 13)}`,
    total: rng.between(99, 5000),
    currency: 'EUR',
    items: rng.between(1, 4),
    coupon: rng.next() > 0.8 ? 'SPRING20' : null,
    payment: rng.pick(['card', 'sepa', 'paypal']),
    step: 'confirmed',
  }),
  signup: (rng, page) => ({
    method: rng.pick(['email', 'google', 'github']),
    plan: rng.pick(['free', 'team', 'business']),
    trial_days: 14,
    page: page.path,
    newsletter: rng.next() > 0.5,
    referral_code: null,
    company_size: rng.pick(['1-10', '11-50', '51-200']),
  }),
  js_error: (rng, page) => ({
    message: "TypeError: Cannot read properties of undefined (reading 'id')",
    source: '/assets/app.3f9a1c.js',
    line: rng.between(1, 4000),
    column: rng.between(1, 120),
    page: page.path,
    handled: false,
  }),
};

/** What a tracker wrapper typically adds to every event: which build of the front end sent it. */
const APP = { version: '4.12.3', build: 'a1b2c3d', env: 'production' };

export function payloadFor(action: string, rng: SeededRandom, page: Page): Payload {
  const build = builders[action];
  if (!build) throw new Error(`no payload builder for action ${action}`);
  return { ...build(rng, page), app: APP };
}
