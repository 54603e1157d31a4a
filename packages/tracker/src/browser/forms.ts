/**
 * The forms add-on, appended when the tag asks for it (`/js/<site id>.js?addons=forms`, render.ts):
 * form submissions and clicks on class-marked elements become custom events without code, usable
 * as goals and funnel steps like any other.
 * - A form submitted (a `submit` event: the browser's own checks passed; `form.submit()` from a
 *   script fires none) sends `Form Submit` with `form`: the form's `id`, else its `name`, else
 *   `(unnamed)`. Never a field's name or value.
 * - An element with the class `footfall-event-name=Signup` sends `Signup` on a click on it (or
 *   inside it), and a form with it sends that name when submitted instead of `Form Submit`; its
 *   `footfall-event-<key>=<value>` classes are properties. `+` stands for a space. For editors and
 *   site builders that let one add a class but not an attribute (`data-footfall-event` needs no
 *   add-on).
 * Events go through `footfall('event', ...)`, so consent, Do Not Track and "don't count me" rule
 * them as every other. A separate script, so a site that does not ask loads not one byte of it.
 */
const MARK = /^footfall-event-([\w-]+)=(.+)$/;

/** The name and properties an element's classes mark it with; undefined when unmarked. */
const marked = (el: Element | null | undefined): [string, Record<string, string>] | undefined => {
  let name: string | undefined;
  const props: Record<string, string> = {};
  for (const c of el?.classList ?? []) {
    const m = MARK.exec(c);
    if (!m) continue;
    const value = m[2]!.replace(/\+/g, ' ');
    if (m[1] === 'name') name = value;
    else props[m[1]!] = value;
  }
  return name ? [name, props] : undefined;
};

// biome-ignore lint/suspicious/noExplicitAny: the tracker's global, defined by the script before this
const send = (event: [string, Record<string, string>]) => (window as any).footfall('event', ...event);

addEventListener(
  'submit',
  (event) => {
    const form = event.target as HTMLFormElement;
    send(marked(form) ?? ['Form Submit', { form: form.id || form.getAttribute('name') || '(unnamed)' }]);
  },
  true,
);
addEventListener(
  'click',
  (event) => {
    const own = marked((event.target as Element).closest?.('[class*="footfall-event-name="]'));
    // a marked form counts when it is submitted, not on every click inside it
    if (own && !(event.target as Element).closest('form[class*="footfall-event-name="]')) send(own);
  },
  true,
);
