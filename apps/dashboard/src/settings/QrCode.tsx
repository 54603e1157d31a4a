import { encode } from 'uqr';

/** A QR code of `text` as SVG (black on white in both colour schemes, so phones can read it). */
export function QrCode(props: { text: string; label: string }) {
  const { size, data } = encode(props.text, { ecc: 'M', border: 2 });
  const path = data.flatMap((row, y) => row.map((dark, x) => (dark ? `M${x} ${y}h1v1h-1z` : ''))).join('');
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${size} ${size}`}
      width={200}
      height={200}
      role="img"
      aria-label={props.label}
      shape-rendering="crispEdges"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
