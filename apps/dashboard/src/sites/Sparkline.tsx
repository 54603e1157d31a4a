/** A small line of daily numbers, drawn as SVG (no chart library needed for 30 points). */
export function Sparkline({ values }: { values: number[] }) {
  if (values.length < 2) return null;
  const max = Math.max(1, ...values);
  const step = 100 / (values.length - 1);
  const points = values
    .map((v, i) => `${(i * step).toFixed(2)},${(28 - (v / max) * 26).toFixed(2)}`)
    .join(' ');
  return (
    <svg
      class="sparkline"
      viewBox="0 0 100 30"
      preserveAspectRatio="none"
      aria-hidden="true"
      focusable="false"
    >
      <polyline points={`0,30 ${points} 100,30`} class="sparkline-area" />
      <polyline points={points} class="sparkline-line" />
    </svg>
  );
}
