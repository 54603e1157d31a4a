/** Set by the build (vite.config.ts, flags): where the flags are, and which codes have one. */
declare const __FLAGS__: { path: string; codes: string } | undefined;
const FLAGS = typeof __FLAGS__ === 'object' ? __FLAGS__ : { path: '/assets/flags', codes: '' };

let codes: Set<string> | undefined;
/** Whether the build wrote a flag for this two-letter code (asking for a missing one logs an error). */
function hasFlag(code: string): boolean {
  codes ??= new Set(FLAGS.codes.match(/../g) ?? []);
  return codes.has(code);
}

/**
 * A country's flag as a small image (the same on every system, unlike flag emoji), next to its
 * name: decorative, so it has no text of its own. Nothing for a code without a flag.
 */
export function Flag({ code }: { code: string }) {
  const lower = code.toLowerCase();
  if (!/^[a-z]{2}$/.test(lower) || !hasFlag(lower)) return null;
  return (
    <img
      class="flag"
      src={`${FLAGS.path}/${lower}.svg`}
      alt=""
      width={20}
      height={15}
      loading="lazy"
      decoding="async"
    />
  );
}
