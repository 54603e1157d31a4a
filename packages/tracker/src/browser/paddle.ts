/**
 * The Paddle.js add-on, appended to the tracker of a site that has a Paddle connection (render.ts):
 * Paddle checkouts carry the visitor id as custom data (webhook `custom_data.footfall_vid`), as
 * checkout links carry it in their URL (clicks.ts). On each click, before the page's own handlers
 * (a capture-phase listener):
 * - a clicked `.paddle_button` gets it in its `data-custom-data` (Paddle.js reads it on click);
 * - `Paddle.Checkout.open`, once Paddle.js is on the page, adds it to the `customData` the page
 *   passes (a Paddle.js that replaced `open` again is wrapped again).
 * Custom data the site sets itself is kept, its own `footfall_vid` first. The id is the tracker's
 * `footfall_vid` cookie: none (cookieless mode, no consent, Do Not Track) adds nothing. A separate
 * script, so a site without Paddle loads not one byte of it.
 */
const KEY = 'footfall_vid';
const ATTR = 'data-custom-data';
let wrapped: unknown;

addEventListener(
  'click',
  (event) => {
    const vid = document.cookie.match(/footfall_vid=([\w-]{8,64})/)?.[1];
    if (!vid) return;
    const ours = (own?: object | null) => ({ [KEY]: vid, ...own });
    const button = (event.target as Element).closest?.('.paddle_button');
    if (button) {
      let own = null;
      try {
        own = JSON.parse(button.getAttribute(ATTR)!); // none: null
      } catch {}
      button.setAttribute(ATTR, JSON.stringify(ours(own)));
    }
    // biome-ignore lint/suspicious/noExplicitAny: Paddle.js is the page's, untyped
    const checkout = (window as any).Paddle?.Checkout;
    // without Paddle.js both sides are undefined
    if (checkout?.open !== wrapped) {
      const open = checkout.open;
      wrapped = checkout.open = (o: { customData?: object }) =>
        open.call(checkout, { ...o, customData: ours(o?.customData) });
    }
  },
  true,
);
